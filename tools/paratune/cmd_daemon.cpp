// paratune daemon: the long-lived tuning service. Many sessions in one
// process, a control endpoint for submit, list, cancel, watch and the rest,
// a dashboard with /metrics and /health, and every session resumed after a
// restart, a kill -9 included.

#include <csignal>
#include <iostream>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "adapters/process/process_environment.hpp"
#include "core/input_error.hpp"
#include "core/secret_env.hpp"
#include "daemon/daemon_config.hpp"
#include "daemon/daemon_http.hpp"
#include "daemon/endpoints_file.hpp"
#include "daemon/json_log.hpp"
#include "daemon/tuning_daemon.hpp"
#include "messages/ec.hpp"
#include "messages/type_ids.hpp"
#include "session_start/session_record.hpp"
#include "storage/rocks_db.hpp"
#include "tools/paratune/command.hpp"

namespace paratune::cli {

namespace {

struct daemon_options {
  std::string config_file;
  daemon_config overrides;
  std::string log_format;
  CLI::App* app = nullptr;
};

/// The config file's values, then what the command line gave.
daemon_config effective_config(const daemon_options& o) {
  auto c = o.config_file.empty() ? daemon_config{} : load_daemon_config(o.config_file);
  const auto given = [&](const char* flag) { return o.app->count(flag) > 0; };
  if (given("--state"))
    c.state_dir = o.overrides.state_dir;
  if (given("--control"))
    c.control = o.overrides.control;
  if (given("--bus-publish"))
    c.bus_publish = o.overrides.bus_publish;
  if (given("--bus-subscribe"))
    c.bus_subscribe = o.overrides.bus_subscribe;
  if (given("--relay-ingress"))
    c.relay_ingress = o.overrides.relay_ingress;
  if (given("--http"))
    c.http = o.overrides.http == "off" ? "" : o.overrides.http;
  if (given("--log-format"))
    c.log = o.log_format == "json" ? log_format::json : log_format::text;
  if (given("--log-level"))
    c.log_level = o.overrides.log_level;
  if (given("--max-sessions"))
    c.max_sessions = o.overrides.max_sessions;
  if (given("--allow-remote"))
    c.allow_remote = true;
  if (given("--curve-key"))
    c.curve_key = o.overrides.curve_key;
  if (given("--control-user"))
    c.control_users = o.overrides.control_users;
  if (given("--authorized-keys"))
    c.authorized_keys = o.overrides.authorized_keys;
  if (given("--http-token-file"))
    c.http_token_file = o.overrides.http_token_file;
  check_daemon_config(c);
  return c;
}

/// Blocks SIGTERM and SIGINT in this thread and in every thread started
/// after it, so that the main thread alone takes them (sigwait).
sigset_t block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

int run_daemon(const daemon_options& o) {
  const auto cfg = effective_config(o); // bad input: exit 2 before anything starts
  const auto secrets = process_secret_env_names(cfg.reasoner, cfg.secret_env);
  use_log_format(cfg.log, cfg.log_level,
                 secret_redactor(values_in_this_process({secrets.begin(), secrets.end()})));
  const auto signals = block_stop_signals();
  caf::actor_system_config sys_cfg;
  sys_cfg.add_message_types<caf::id_block::paratune>();
  caf::actor_system sys{sys_cfg};
  auto daemon = tuning_daemon::start(sys, cfg);
  if (!daemon) {
    spdlog::error("daemon: cannot start: {}", describe(daemon.error()));
    // Exit 1 (not an abort), with what to do: a restart loop is no remedy.
    if (fault_of(daemon.error()) == storage_fault::damaged)
      spdlog::error("daemon: the pool stays as it is: `paratune pool check {0}` tells what is "
                    "damaged; `paratune pool repair {0}` copies every file aside, then keeps "
                    "every record that reads",
                    cfg.state_dir + "/pool");
    return 1;
  }
  auto http = start_daemon_http(**daemon, cfg.http, cfg.http_token_file);
  if (!http) {
    spdlog::error("daemon: {}", describe(http.error()));
    return 1;
  }
  const auto http_address = cfg.http.empty() ? std::string() : (*http)->address();
  (*daemon)->serving_http(http_address);
  // The ports it took (free ones by default), kept where its owner's tools
  // look: the state directory, in a file only the owner reads. Left after
  // a stop: the next daemon here takes the same relay port when it can, so
  // that the relays of Slurm trials left running stay heard.
  const auto endpoints_file = endpoints_file_of(cfg.state_dir);
  try {
    write_endpoints_file(endpoints_file,
                         {(*daemon)->control_endpoint(), (*daemon)->bus().subscribe,
                          reachable((*daemon)->relay_endpoint()), http_address, long(::getpid())});
  } catch (const std::exception& e) {
    spdlog::error("daemon: {}", e.what());
    return 1;
  }
  // One line on stdout for whoever started it: where to reach it.
  std::cout << "paratune daemon: control " << (*daemon)->control_endpoint() << ", bus "
            << (*daemon)->bus().subscribe << ", http "
            << (cfg.http.empty() ? std::string("off") : http_address) << ", state "
            << cfg.state_dir << ", relay " << (*daemon)->relay_endpoint() << std::endl;
  int sig = 0;
  sigwait(&signals, &sig);
  spdlog::info("daemon: {} received, stopping (Slurm jobs are left running)",
               sig == SIGTERM ? "SIGTERM" : "SIGINT");
  http->reset();
  (*daemon)->stop();
  spdlog::info("daemon: stopped");
  return 0;
}

command_action setup_daemon(CLI::App& app) {
  auto o = std::make_shared<daemon_options>();
  o->app = &app;
  const daemon_config d;
  app.add_option("--config", o->config_file, "the daemon's YAML config file");
  app.add_option("--state", o->overrides.state_dir,
                 "state directory: the pool and the trials' directories (default " + d.state_dir
                   + ")");
  app.add_option("--control", o->overrides.control,
                 "control endpoint (default ipc://STATE/control.sock, the owner's Unix socket; "
                 "tcp://HOST:PORT needs --curve-key and --authorized-keys)");
  app.add_option("--control-user", o->overrides.control_users,
                 "another user (name or uid) who may use the control socket; repeatable");
  app.add_option("--authorized-keys", o->overrides.authorized_keys,
                 "folder of client public keys (paratune keygen --client) heard over TCP");
  app.add_option("--http-token-file", o->overrides.http_token_file,
                 "file holding the dashboard's token; required for http beyond the loopback");
  app.add_option("--bus-publish", o->overrides.bus_publish,
                 "the agents' bus, publish side (default ipc://STATE/bus-publish.sock)");
  app.add_option("--bus-subscribe", o->overrides.bus_subscribe,
                 "the agents' bus, subscribe side (default ipc://STATE/bus-subscribe.sock)");
  app.add_option("--relay-ingress", o->overrides.relay_ingress,
                 "where trials' relays publish their lines, the one bus endpoint for cluster "
                 "nodes (default " + d.relay_ingress + ": a free port)");
  app.add_option("--http", o->overrides.http,
                 "HOST:PORT of the dashboard, /metrics and /health, or off (default " + d.http
                   + ": a free port)");
  app.add_option("--log-format", o->log_format, "text or json")
    ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--log-level", o->overrides.log_level, "trace, debug, info, warn or error")
    ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  app.add_option("--max-sessions", o->overrides.max_sessions, "running sessions at once")
    ->check(CLI::Range(1, 100000));
  app.add_flag("--allow-remote", o->overrides.allow_remote,
               "allow endpoints beyond the loopback");
  app.add_option("--curve-key", o->overrides.curve_key,
                 "the daemon's key file (paratune keygen): CURVE on a TCP control endpoint");
  return [o] { return run_daemon(*o); };
}

registrar daemon_command{{"daemon", "run the tuning daemon (sessions, control endpoint, dashboard)", setup_daemon}};

} // namespace

} // namespace paratune::cli
