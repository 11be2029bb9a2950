// adapters/relay runs inside paratune-relay on a cluster node: it speaks its
// own wire bodies, not the agents' envelopes.
#include "adapters/relay/relay_wire.hpp"
#include "messages/codec.hpp"
