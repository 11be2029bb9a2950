#pragma once

#include <memory>
#include <optional>
#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "actors/runtime.hpp"

namespace paratune::cli {

/// The actor system and the runtime a command runs its agents on, in this
/// process, on a private bus and the pool at `db`. The log shows warnings
/// and errors only: the command's own output is the report.
/// `tuning_agents`: start OptiCo's agents too (runtime_options). `bus`:
/// where to bind the bus instead (tune_relay_bus's private sockets, when
/// relays on other machines publish to it through an ingress), and
/// `relay_master` the secret their keys derive from.
class command_runtime {
public:
  explicit command_runtime(const std::string& db, bool tuning_agents = true,
                           bus_endpoints bus = {},
                           std::optional<relay_key> relay_master = std::nullopt);
  ~command_runtime();

  /// False when the runtime did not start; the reason was printed to stderr
  /// as "error: ...", and the command should exit 1.
  bool started() const { return rt_ != nullptr; }

  caf::actor_system& system() { return sys_; }
  runtime& get() { return *rt_; }
  runtime* operator->() { return rt_.get(); }

  /// The new session's id (runtime::claim_session_id); none when the pool
  /// could not be read, the reason printed to stderr as "error: ...", and
  /// the command should exit 1.
  std::optional<std::string> claim_session_id();

private:
  static caf::actor_system_config& configured(caf::actor_system_config& cfg);

  caf::actor_system_config cfg_;
  caf::actor_system sys_;
  std::unique_ptr<runtime> rt_;
};

} // namespace paratune::cli
