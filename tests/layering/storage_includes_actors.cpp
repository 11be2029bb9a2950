// The pool does not know the actor that serves it.
#include "storage/message_pool.hpp"
#include "actors/pool_actor.hpp"
