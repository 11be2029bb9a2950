#include "actors/pool_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "core/storage_fault.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "messages/topics.hpp"
#include "storage/message_pool.hpp"
#include "storage/rocks_db.hpp"

namespace paratune {

namespace {

write_origin origin_of(const wire::envelope& e) {
  return e.type == wire::type_name<wire::session_opened>() ? write_origin::new_session
                                                           : write_origin::running_session;
}

bool hold_refused_write(const wire::envelope& e, const caf::error& err) {
  return on_write_fault(fault_of(err), origin_of(e)) == write_action::wait_and_retry;
}

/// Tries the held writes in order; stops at the first the pool still refuses.
void retry_held_writes(pool_actor::stateful_pointer<pool_state> self) {
  auto& st = self->state;
  // RocksDB lifts its stop by itself once space is back; this covers a
  // device error, which it does not retry on its own.
  (void)st.pool->resume();
  while (!st.held.empty()) {
    auto& front = st.held.front();
    auto stored = st.pool->append_record(front.record);
    if (!stored && hold_refused_write(front.record, stored.error())) {
      ++st.attempts;
      self->delayed_send(self, write_retry_delay(st.attempts), tick_atom_v);
      return;
    }
    if (stored) {
      st.publish(*stored);
      front.promise.deliver(stored->seq);
    } else {
      front.promise.deliver(stored.error());
    }
    st.held.pop_front();
  }
  spdlog::info("pool: held writes stored after {} retries; writing again", st.attempts);
  st.attempts = 0;
}

} // namespace

void pool_state::publish(const wire::envelope& stored) const {
  // Sent before the writer's answer: the writer's own publication of the
  // record comes after this copy on the bus, so a follower that gets the
  // writer's message already holds the record.
  if (egress)
    caf::anon_send(egress, publish_atom_v, topics::record(stored.session), wire::pack(stored));
}

pool_actor::behavior_type pool(pool_actor::stateful_pointer<pool_state> self,
                               std::shared_ptr<message_pool> db,
                               std::shared_ptr<pool_read_log> reads, egress_actor egress) {
  self->state.pool = std::move(db);
  self->state.reads = std::move(reads);
  self->state.egress = std::move(egress);
  return {
    [=](append_atom, wire::envelope& e) -> caf::result<uint64_t> {
      auto& st = self->state;
      if (st.held.empty()) {
        auto stored = st.pool->append_record(e);
        if (stored) {
          st.publish(*stored);
          return stored->seq;
        }
        if (!hold_refused_write(e, stored.error())) {
          spdlog::error("pool: {}", describe(stored.error()));
          return stored.error();
        }
        spdlog::warn("pool: {}; session {} pauses until the write is stored",
                     describe(stored.error()), e.session);
        st.attempts = 1;
        self->delayed_send(self, write_retry_delay(st.attempts), tick_atom_v);
      } else if (origin_of(e) == write_origin::new_session) {
        return caf::make_error(ec::storage_no_space,
                               "the pool holds writes it could not store (no space left); "
                               "nothing new is started until they are stored");
      }
      auto promise = self->make_response_promise<uint64_t>();
      st.held.push_back({std::move(e), promise});
      return promise;
    },
    [=](history_atom, const std::string& session,
        uint64_t after_seq) -> caf::result<std::vector<wire::envelope>> {
      auto records = self->state.pool->session_history(session, after_seq);
      if (!records)
        return records.error();
      if (auto& log = self->state.reads) {
        const auto& sender = self->current_sender();
        const auto* reader = sender ? dynamic_cast<const caf::local_actor*>(sender->get()) : nullptr;
        log->note(reader ? reader->name() : "unknown", after_seq, records->size());
      }
      return std::move(*records);
    },
    [=](tick_atom) { retry_held_writes(self); },
  };
}

} // namespace paratune
