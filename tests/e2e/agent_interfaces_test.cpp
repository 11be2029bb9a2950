// The agents' typed interfaces (actors/agent_interfaces.hpp), checked at
// compile time: a handle accepts the messages its interface lists and no
// other, with the very check CAF's send() and request() make
// (caf::response_type_unbox), so that a line sending an agent a message it
// does not handle does not compile. And the agents are spawned typed: what
// spawn() returns is the interface, not caf::actor.

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/check_typed_input.hpp>
#include <caf/response_type.hpp>
#include <gtest/gtest.h>

#include "actors/agent_interfaces.hpp"
#include "actors/bottleneck_analyst.hpp"
#include "actors/failure_analyst.hpp"
#include "actors/strategy_generator.hpp"
#include "actors/telemetry_agent.hpp"
#include "actors/tpu_session.hpp"
#include "actors/tuning_session.hpp"
#include "actors/validator.hpp"
#include "actors/watchdog.hpp"

namespace paratune {
namespace {

/// Whether `Handle` accepts the message (Ts...): what send() static_asserts.
template <class Handle, class... Ts>
constexpr bool agent_accepts =
  caf::response_type_unbox<caf::signatures_of_t<Handle>, caf::detail::type_list<Ts...>>::valid;

/// What `Handle` answers to (Ts...).
template <class Handle, class... Ts>
using agent_answer_of =
  caf::response_type_unbox_t<caf::signatures_of_t<Handle>, caf::detail::type_list<Ts...>>;

using std::string;

// Every bus agent takes its bus message.
static_assert(agent_accepts<bottleneck_analyst_actor, bus_atom, string, string>);
static_assert(agent_accepts<strategy_generator_actor, bus_atom, string, string>);
static_assert(agent_accepts<validator_actor, bus_atom, string, string>);
static_assert(agent_accepts<failure_analyst_actor, bus_atom, string, string>);
static_assert(agent_accepts<telemetry_agent_actor, bus_atom, string, string>);
static_assert(agent_accepts<analyzer_actor, bus_atom, string, string>);
static_assert(agent_accepts<proposal_agent_actor, bus_atom, string, string>);
static_assert(agent_accepts<tuning_session_actor, bus_atom, string, string>);
static_assert(agent_accepts<tpu_session_actor, bus_atom, string, string>);

// ... and nothing it does not handle: a cancel is for sessions, a child's
// output for who starts children, a scrape for the telemetry agent.
static_assert(!agent_accepts<strategy_generator_actor, cancel_atom, string>);
static_assert(!agent_accepts<bottleneck_analyst_actor, int>);
static_assert(!agent_accepts<bottleneck_analyst_actor, bus_atom, string>);
static_assert(!agent_accepts<failure_analyst_actor, line_atom, string, string>);
static_assert(!agent_accepts<validator_actor, scrape_atom, string>);
static_assert(!agent_accepts<validator_actor, cancel_atom, string>);
static_assert(!agent_accepts<telemetry_agent_actor, tick_atom>);

// The validator's own messages.
static_assert(agent_accepts<validator_actor, line_atom, string, string>);
static_assert(agent_accepts<validator_actor, exited_atom, string, int>);
static_assert(agent_accepts<validator_actor, tick_atom>);
static_assert(agent_accepts<validator_actor, placed_atom, string, string>);
static_assert(agent_accepts<validator_actor, submitted_atom, string, int64_t, string>);
static_assert(agent_accepts<telemetry_agent_actor, scrape_atom, string>);

// A worker answers whether an analysis ran.
static_assert(std::is_same_v<agent_answer_of<analysis_worker_actor, analyse_atom, wire::envelope,
                                       std::vector<wire::envelope>>,
                             caf::detail::type_list<bool>>);
static_assert(!agent_accepts<analysis_worker_actor, bus_atom, string, string>);

// Sessions: what the daemon and the watchdog send any session; each its own
// timer, which the other kind does not take.
static_assert(agent_accepts<session_actor, cancel_atom, string>);
static_assert(agent_accepts<session_actor, agent_down_atom, string, string>);
static_assert(agent_accepts<session_actor, replay_atom>);
static_assert(!agent_accepts<session_actor, tick_atom>);
static_assert(agent_accepts<tuning_session_actor, tick_atom>);
static_assert(!agent_accepts<tuning_session_actor, tick_atom, int>);
static_assert(!agent_accepts<tuning_session_actor, line_atom, string, string>);
static_assert(agent_accepts<tpu_session_actor, tick_atom, int>);
static_assert(!agent_accepts<tpu_session_actor, tick_atom>);
static_assert(!agent_accepts<tpu_session_actor, exited_atom, string, int>); // the validator runs its trials

// A session's end travels as a result: (done_atom, id, state, text).
static_assert(agent_accepts<session_listener_actor, done_atom, string, session_state, string>);
static_assert(!agent_accepts<session_listener_actor, done_atom, string, caf::error>);

// The watchdog takes agents and sessions to watch, and nothing else.
static_assert(agent_accepts<watchdog_actor, watch_atom, caf::actor, string>);
static_assert(!agent_accepts<watchdog_actor, bus_atom, string, string>);

// Spawned typed: the handles are the interfaces.
template <class F, class... Args>
using agent_spawned = decltype(std::declval<caf::actor_system&>().spawn(std::declval<F>(),
                                                                  std::declval<Args>()...));
static_assert(std::is_same_v<agent_spawned<decltype(&strategy_generator), agent_deps>,
                             strategy_generator_actor>);
static_assert(std::is_same_v<agent_spawned<decltype(&bottleneck_analyst), agent_deps, int>,
                             bottleneck_analyst_actor>);
static_assert(std::is_same_v<agent_spawned<decltype(&validator), agent_deps, validator_options>,
                             validator_actor>);
static_assert(std::is_same_v<agent_spawned<decltype(&telemetry_agent), agent_deps>,
                             telemetry_agent_actor>);
static_assert(std::is_same_v<agent_spawned<decltype(&watchdog)>, watchdog_actor>);
static_assert(std::is_same_v<agent_spawned<decltype(&tuning_session), agent_deps, bus_bridge*,
                                     string, wire::session_opened, session_listener_actor,
                                     tuning_session_options>,
                             tuning_session_actor>);
static_assert(std::is_same_v<agent_spawned<decltype(&tpu_session), agent_deps, bus_bridge*,
                                     tpu_session_options, session_listener_actor>,
                             tpu_session_actor>);

// A wider handle narrows to the interface a caller needs (the daemon holds
// every session as session_actor, the bridge every subscriber as
// bus_agent_actor).
static_assert(std::is_constructible_v<session_actor, tpu_session_actor>);
static_assert(std::is_constructible_v<bus_agent_actor, validator_actor>);

TEST(agent_interfaces, are_checked_when_this_file_compiles) {
  // The checks above are static_asserts: this file compiling is the test.
  EXPECT_TRUE((agent_accepts<validator_actor, exited_atom, string, int>));
  EXPECT_FALSE((agent_accepts<strategy_generator_actor, cancel_atom, string>));
}

} // namespace
} // namespace paratune
