// core must not know the wire format.
#include "core/tuning/reasoner.hpp"
#include "messages/codec.hpp"
