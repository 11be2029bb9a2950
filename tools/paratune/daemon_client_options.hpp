#pragma once

#include <optional>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "messages/control_wire.hpp"

namespace CLI {
class App;
class Option;
}

namespace paratune::cli {

/// Where a command that reads sessions (report, export, ask, sessions)
/// reads them.
enum class session_source {
  pool,   ///< a pool directory (--db, default ./paratune-pool)
  daemon, ///< a running daemon, which holds its pool locked
};

/// What every client command takes: where the daemon is (`--daemon`, else
/// PARATUNE_DAEMON, else the default endpoint, the owner's
/// ~/.paratune/control.sock) and how long to wait.
struct daemon_client_options {
  std::string endpoint;
  int timeout_s = 10;
  std::string server_key; ///< --server-key, else $PARATUNE_SERVER_KEY: the daemon's .pub
  std::string client_key; ///< --client-key, else $PARATUNE_CLIENT_KEY: this client's .key

  void add_to(CLI::App& app);
  /// For a command that can also read a pool directory: `db` is its --db
  /// option, which source() asks whether it was given.
  void add_to(CLI::App& app, const CLI::Option* db);
  /// The endpoint call() reaches: --daemon, else $PARATUNE_DAEMON, else
  /// the default one.
  std::string where() const;
  /// For a command added with its --db option: --db given reads the pool
  /// ($PARATUNE_DAEMON does not override a flag); else `--daemon` or
  /// $PARATUNE_DAEMON reads the daemon; else the default pool
  /// (./paratune-pool) when it exists; else the owner's default daemon
  /// (~/.paratune/control.sock) when its socket exists; else the default
  /// pool, whose absence is then the error. --db and
  /// --daemon together are refused (input_error): which one was meant?
  session_source source() const;
  /// Sends one request. A refusal and a daemon that did not answer are
  /// printed as "error: ..." and give the exit status through `status`
  /// (2 for a refused request, 1 for no answer); a reply otherwise.
  caf::expected<control::reply> call(const control::request& r, int& status) const;
  /// Every record of `session`, read from the daemon in pages; none (the
  /// reason printed, `status` set as call() sets it) when a page is refused
  /// or does not come.
  std::optional<std::vector<wire::envelope>> history(const std::string& session,
                                                     int& status) const;

private:
  const CLI::Option* db_ = nullptr; ///< the command's --db, owned by its CLI::App
};

} // namespace paratune::cli
