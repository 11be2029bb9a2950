#include "actors/pool_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "messages/ec.hpp"
#include "storage/message_pool.hpp"

namespace paratune {

pool_actor::behavior_type pool(pool_actor::stateful_pointer<pool_state> self,
                               std::shared_ptr<message_pool> db) {
  self->state.pool = std::move(db);
  return {
    [=](append_atom, wire::envelope& e) -> caf::result<uint64_t> {
      auto seq = self->state.pool->append(std::move(e));
      if (!seq)
        spdlog::error("pool: {}", describe(seq.error()));
      return seq;
    },
    [=](history_atom, const std::string& session,
        uint64_t after_seq) -> caf::result<std::vector<wire::envelope>> {
      auto records = self->state.pool->session_history(session, after_seq);
      if (!records)
        return records.error();
      return std::move(*records);
    },
  };
}

} // namespace paratune
