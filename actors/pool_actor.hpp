#pragma once

#include <deque>
#include <memory>

#include "actors/interfaces.hpp"
#include "actors/pool_read_log.hpp"

namespace paratune {

class message_pool;

/// A write the pool refused for a cause that may pass (a full disk), held
/// with the writer's promise until a retry stores it.
struct held_append {
  wire::envelope record;
  caf::typed_response_promise<uint64_t> promise;
};

struct pool_state {
  std::shared_ptr<message_pool> pool;
  /// Held writes, oldest first; while any is held, every new write queues
  /// behind it, so records keep the order they were sent in.
  std::deque<held_append> held;
  int attempts = 0; ///< retries of the oldest held write so far
  std::shared_ptr<pool_read_log> reads; ///< counts session reads by reader, when set
  /// Where every stored record is published on "record.<session>", when set
  /// (a runtime's bus; a command that only reads or records has none).
  egress_actor egress;

  /// Publishes `stored` on its session's record topic, when there is a bus.
  void publish(const wire::envelope& stored) const;
  static inline const char* name = "pool";
};

/// Serves the pool to the agents. Spawn detached: RocksDB writes block.
/// A write refused for want of space is held and retried (its writer waits,
/// its session pauses) until it is stored; reads are served meanwhile.
/// With `egress`, every record is published as stored (seq and prev_seq
/// set) before its writer gets its number: the agents' ledgers follow a
/// session on the bus from these (ledger/session_ledger.hpp, follow()).
pool_actor::behavior_type pool(pool_actor::stateful_pointer<pool_state> self,
                               std::shared_ptr<message_pool> db,
                               std::shared_ptr<pool_read_log> reads = nullptr,
                               egress_actor egress = {});

} // namespace paratune
