#pragma once

// How a caller waits for a session, GPU or TPU: it is the session's
// listener, and takes the done message the session sends when it ends.

#include <chrono>
#include <string>

#include <caf/expected.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/agent_interfaces.hpp"
#include "core/session_state.hpp"

namespace paratune {

/// How a session ended, as its listener was told.
struct session_end {
  session_state state = session_state::failed;
  std::string text;
};

/// A blocking actor as a session's listener: it takes the done message with
/// receive() (await_session).
session_listener_actor listener_of(caf::scoped_actor& self);

/// Waits for `session` (a GPU or a TPU one) to end: its done message, or its
/// death (a down message with the reason, as an error). `self` is the
/// session's listener (listener_of). `timeout` 0 waits without limit.
caf::expected<session_end> await_session(caf::scoped_actor& self, const session_actor& session,
                                         std::chrono::seconds timeout = std::chrono::seconds(0));

} // namespace paratune
