// The wire format does not know who sends it.
#include "messages/codec.hpp"
#include "actors/runtime.hpp"
