// The wire format does not know where it is stored.
#include "messages/codec.hpp"
#include "storage/message_pool.hpp"
