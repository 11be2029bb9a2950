// What storage may use: itself, messages, core/retrieval.
#include "storage/knowledge_index.hpp"
#include "storage/message_pool.hpp"
#include "messages/codec.hpp"
