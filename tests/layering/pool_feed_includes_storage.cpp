// A subscriber reads the pool through its owner's history endpoint only.
#include "adapters/pool_feed/record_feed.hpp"
#include "storage/message_pool.hpp"
