#include "tools/paratune/command_runtime.hpp"

#include <iostream>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "messages/ec.hpp"
#include "messages/type_ids.hpp"

namespace paratune::cli {

caf::actor_system_config& command_runtime::configured(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::paratune>();
  return cfg;
}

command_runtime::command_runtime(const std::string& db, bool tuning_agents, bus_endpoints bus,
                                 std::optional<relay_key> relay_master)
  : sys_(configured(cfg_)) {
  // Warnings go to stderr: stdout is the command's answer (`--json` parsed
  // by scripts), and a warning there would break it.
  if (!spdlog::get("paratune"))
    spdlog::set_default_logger(spdlog::stderr_color_mt("paratune"));
  spdlog::set_level(spdlog::level::warn);
  runtime_options opts{db, std::move(bus), true, false};
  opts.tuning_agents = tuning_agents;
  opts.relay_master = relay_master;
  auto rt = runtime::start(sys_, opts);
  if (!rt) {
    std::cerr << "error: " << describe(rt.error()) << '\n';
    return;
  }
  rt_ = std::move(*rt);
}

command_runtime::~command_runtime() {
  if (rt_)
    rt_->stop(); // before the actor system goes
}

std::optional<std::string> command_runtime::claim_session_id() {
  auto id = rt_->claim_session_id();
  if (!id) {
    std::cerr << "error: cannot name the session: " << describe(id.error()) << '\n';
    return std::nullopt;
  }
  return *id;
}

} // namespace paratune::cli
