// core/relay is the relay's pure logic: it does no I/O, so it sees no socket.
#include "core/relay/relay_sequencer.hpp"
#include "adapters/bus/zmq_bus.hpp"
