#include "actors/watchdog.hpp"

#include <algorithm>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "messages/ec.hpp"
#include "messages/type_ids.hpp"

namespace paratune {

namespace {

bool is_shutdown(const caf::error& reason) {
  return !reason || reason == caf::exit_reason::user_shutdown
         || reason == caf::exit_reason::normal || reason == caf::exit_reason::kill;
}

} // namespace

watchdog_actor::behavior_type watchdog(watchdog_actor::stateful_pointer<watchdog_state> self) {
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& st = self->state;
    auto& sessions = st.sessions;
    sessions.erase(std::remove(sessions.begin(), sessions.end(), dm.source), sessions.end());
    auto agent = st.agents.find(dm.source);
    if (agent == st.agents.end())
      return;
    const auto name = agent->second;
    st.agents.erase(agent);
    if (is_shutdown(dm.reason))
      return;
    ++st.deaths;
    const auto reason = describe(dm.reason);
    spdlog::error("watchdog: the {} agent died: {}", name, reason);
    for (const auto& s : sessions)
      if (auto session = caf::actor_cast<session_actor>(s))
        self->send(session, agent_down_atom_v, name, reason);
  });
  return {
    [=](watch_atom, const caf::actor& agent, const std::string& name) {
      self->monitor(agent);
      self->state.agents.emplace(agent.address(), name);
    },
    [=](watch_atom, const caf::actor& session) {
      self->monitor(session);
      self->state.sessions.push_back(session.address());
    },
  };
}

} // namespace paratune
