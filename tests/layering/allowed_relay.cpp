// What adapters/relay may use: core/relay, adapters/bus, adapters/process.
#include "adapters/relay/relayed_trial.hpp"
#include "core/relay/relay_sequencer.hpp"
#include "adapters/bus/zmq_bus.hpp"
#include "adapters/process/child_process.hpp"
