#include "actors/pool_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "storage/message_pool.hpp"

namespace paratune {

pool_actor::behavior_type pool(pool_actor::stateful_pointer<pool_state> self,
                               std::shared_ptr<message_pool> db) {
  self->state.pool = std::move(db);
  return {
    [=](append_atom, const std::string& bytes) -> caf::result<uint64_t> {
      wire::envelope e;
      try {
        e = wire::decode_envelope(bytes);
      } catch (const wire::decode_error& err) {
        return caf::make_error(ec::decode_failure, err.what());
      }
      auto seq = self->state.pool->append(std::move(e));
      if (!seq)
        spdlog::error("pool: {}", to_string(seq.error()));
      return seq;
    },
    [=](history_atom, const std::string& session) -> caf::result<std::vector<std::string>> {
      auto records = self->state.pool->session_history(session);
      if (!records)
        return records.error();
      std::vector<std::string> out;
      out.reserve(records->size());
      for (const auto& e : *records)
        out.push_back(wire::pack(e));
      return out;
    },
  };
}

} // namespace paratune
