#include "actors/agent_io.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "messages/codec.hpp"

namespace paratune {

void store_and_publish(caf::event_based_actor* self, const agent_deps& deps,
                       const std::string& topic, wire::envelope e,
                       std::function<void(uint64_t)> then) {
  auto egress = deps.egress;
  self->request(deps.pool, caf::infinite, append_atom_v, wire::pack(e))
    .then(
      [=](uint64_t seq) mutable {
        e.seq = seq;
        self->send(egress, publish_atom_v, topic, wire::pack(e));
        if (then)
          then(seq);
      },
      [=](caf::error& err) {
        spdlog::error("{}: cannot store {} for session {}: {}", self->name(), e.type,
                      e.session, to_string(err));
      });
}

void publish_only(caf::event_based_actor* self, const agent_deps& deps, const std::string& topic,
                  const wire::envelope& e) {
  self->send(deps.egress, publish_atom_v, topic, wire::pack(e));
}

std::optional<wire::envelope> decode_bus(const std::string& agent, const std::string& topic,
                                         const std::string& payload) {
  try {
    return wire::decode_envelope(payload);
  } catch (const wire::decode_error& e) {
    spdlog::warn("{}: dropped a message on '{}': {}", agent, topic, e.what());
    return std::nullopt;
  }
}

void with_history(caf::event_based_actor* self, const agent_deps& deps,
                  const std::string& session,
                  std::function<void(std::vector<wire::envelope>)> then) {
  self->request(deps.pool, caf::infinite, history_atom_v, session)
    .then(
      [=](const std::vector<std::string>& records) {
        std::vector<wire::envelope> out;
        out.reserve(records.size());
        for (const auto& r : records) {
          try {
            out.push_back(wire::decode_envelope(r));
          } catch (const wire::decode_error& e) {
            spdlog::warn("{}: skipped a stored record: {}", self->name(), e.what());
          }
        }
        then(std::move(out));
      },
      [=](caf::error& err) {
        spdlog::error("{}: cannot read session {}: {}", self->name(), session, to_string(err));
      });
}

const wire::envelope* find_first(const std::vector<wire::envelope>& history, const char* type) {
  for (const auto& e : history)
    if (e.type == type)
      return &e;
  return nullptr;
}

} // namespace paratune
