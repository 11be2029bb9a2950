#include "tools/paratune/daemon_client_options.hpp"

#include <iostream>

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <filesystem>

#include <sys/stat.h>

#include "daemon/control_client.hpp"
#include "core/input_error.hpp"
#include "daemon/curve_keys.hpp"
#include "daemon/daemon_config.hpp"
#include "messages/ec.hpp"
#include "tools/paratune/command.hpp"

namespace paratune::cli {

void daemon_client_options::add_to(CLI::App& app) {
  app.add_option("--daemon", endpoint,
                 "the daemon's control endpoint (default: $PARATUNE_DAEMON, else "
                   + daemon_endpoint("") + ")");
  app.add_option("--timeout", timeout_s, "seconds to wait for the daemon's answer")
    ->check(CLI::Range(1, 3600));
  app.add_option("--server-key", server_key,
                 "the daemon's public key file (paratune keygen), when it speaks CURVE "
                 "(default: $PARATUNE_SERVER_KEY)");
  app.add_option("--client-key", client_key,
                 "this client's key file (paratune keygen --client), whose .pub is in the "
                 "daemon's authorized_keys (default: $PARATUNE_CLIENT_KEY)");
}

namespace {

/// The --db default of report, export, ask and sessions.
constexpr const char* default_pool_dir = "paratune-pool";

/// No ./paratune-pool, and a socket at the default daemon's endpoint.
bool default_daemon_is_here() {
  if (std::filesystem::exists(default_pool_dir))
    return false;
  const auto endpoint = daemon_endpoint("");
  struct stat st {};
  return endpoint.rfind("ipc://", 0) == 0 && ::stat(endpoint.substr(6).c_str(), &st) == 0
         && S_ISSOCK(st.st_mode);
}

} // namespace

std::string daemon_client_options::where() const {
  return daemon_endpoint(endpoint);
}

void daemon_client_options::add_to(CLI::App& app, const CLI::Option* db) {
  add_to(app);
  db_ = db;
  app.get_option("--daemon")->description(
    "ask this daemon instead of reading a pool directory (default: $PARATUNE_DAEMON, when set "
    "and --db is not given)");
}

session_source daemon_client_options::source() const {
  const bool db_given = db_ && db_->count() > 0;
  if (db_given && !endpoint.empty())
    throw input_error("--db and --daemon: give one (--db reads a pool directory, --daemon a "
                      "running daemon)");
  if (db_given)
    return session_source::pool;
  const char* env = std::getenv("PARATUNE_DAEMON");
  if (!endpoint.empty() || (env && *env))
    return session_source::daemon;
  // Neither named: the default pool when it is here, else the owner's
  // default daemon when its socket is (the README's tour needs no export).
  return default_daemon_is_here() ? session_source::daemon : session_source::pool;
}

namespace {

std::string flag_or_env(const std::string& flag, const char* variable) {
  if (!flag.empty())
    return flag;
  const char* env = std::getenv(variable);
  return env ? env : "";
}

} // namespace

caf::expected<control::reply> daemon_client_options::call(const control::request& r,
                                                          int& status) const {
  const auto key_file = flag_or_env(server_key, "PARATUNE_SERVER_KEY");
  const auto client_file = flag_or_env(client_key, "PARATUNE_CLIENT_KEY");
  const auto key = key_file.empty() ? std::string() : read_curve_key_file(key_file).public_key;
  if (!key.empty() && client_file.empty())
    throw input_error("--client-key: the daemon speaks CURVE and hears only the clients in its "
                      "authorized_keys: give your key file (paratune keygen --client) with "
                      "--client-key or PARATUNE_CLIENT_KEY");
  const auto mine = client_file.empty() ? curve_keypair{} : read_curve_key_file(client_file);
  if (!client_file.empty() && mine.secret_key.empty())
    throw input_error(client_file + ": a public key file; --client-key needs the .key file");
  control_client client{daemon_endpoint(endpoint), std::chrono::seconds(timeout_s), key, mine};
  auto reply = client.call(r);
  if (!reply) {
    std::cerr << "error: " << describe(reply.error()) << '\n';
    status = 1;
    return reply;
  }
  if (!reply->ok) {
    std::cerr << "error: " << reply->error << '\n';
    status = exit_bad_input;
    return caf::make_error(ec::bad_input, reply->error);
  }
  status = 0;
  return reply;
}

std::optional<std::vector<wire::envelope>> daemon_client_options::history(
  const std::string& session, int& status) const {
  control::request page;
  page.op = control::to_string(control::control_op::history);
  page.session = session;
  std::vector<wire::envelope> all;
  for (;;) {
    auto reply = call(page, status);
    if (!reply)
      return std::nullopt;
    all.insert(all.end(), std::make_move_iterator(reply->records.begin()),
               std::make_move_iterator(reply->records.end()));
    if (!reply->more)
      return all;
    page.after_seq = reply->last_seq;
  }
}

} // namespace paratune::cli
