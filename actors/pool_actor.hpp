#pragma once

#include <memory>

#include "actors/interfaces.hpp"

namespace paratune {

class message_pool;

struct pool_state {
  std::shared_ptr<message_pool> pool;
  static inline const char* name = "pool";
};

/// Serves the pool to the agents. Spawn detached: RocksDB writes block.
pool_actor::behavior_type pool(pool_actor::stateful_pointer<pool_state> self,
                               std::shared_ptr<message_pool> db);

} // namespace paratune
