#include "actors/session_await.hpp"

#include <caf/all.hpp>

#include "messages/ec.hpp"

namespace paratune {

session_listener_actor listener_of(caf::scoped_actor& self) {
  return caf::actor_cast<session_listener_actor>(self);
}

caf::expected<session_end> await_session(caf::scoped_actor& self, const session_actor& session,
                                         std::chrono::seconds timeout) {
  self->monitor(session);
  caf::expected<session_end> out = caf::make_error(ec::session_failure, "no answer");
  bool waiting = true;
  auto on_done = [&](done_atom, const std::string&, session_state state, const std::string& t) {
    out = session_end{state, t};
    waiting = false;
  };
  auto on_down = [&](caf::down_msg& dm) {
    if (dm.source != session.address())
      return;
    if (waiting)
      out = caf::make_error(ec::session_failure,
                            "the session ended without an answer: " + describe(dm.reason));
    waiting = false;
  };
  while (waiting) {
    if (timeout.count() > 0)
      self->receive(on_done, on_down, caf::after(timeout) >> [&] {
        out = caf::make_error(ec::session_failure, "the session did not end in time");
        waiting = false;
      });
    else
      self->receive(on_done, on_down);
  }
  self->demonitor(session.address());
  return out;
}

} // namespace paratune
