// What a subscriber's pool feed may use: itself, the bus, messages.
#include "adapters/pool_feed/record_feed.hpp"
#include "adapters/pool_feed/control_router.hpp"
#include "adapters/bus/zmq_bus.hpp"
#include "messages/control_wire.hpp"
