#pragma once

#include <optional>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "messages/control_wire.hpp"

namespace CLI {
class App;
}

namespace paratune::cli {

/// What every client command takes: where the daemon is (`--daemon`, else
/// PARATUNE_DAEMON, else the default endpoint) and how long to wait.
struct daemon_client_options {
  std::string endpoint;
  int timeout_s = 10;
  std::string server_key; ///< --server-key, else $PARATUNE_SERVER_KEY: the daemon's .pub
  std::string client_key; ///< --client-key, else $PARATUNE_CLIENT_KEY: this client's .key

  void add_to(CLI::App& app);
  /// Sends one request. A refusal and a daemon that did not answer are
  /// printed as "error: ..." and give the exit status through `status`
  /// (2 for a refused request, 1 for no answer); a reply otherwise.
  caf::expected<control::reply> call(const control::request& r, int& status) const;
  /// Every record of `session`, read from the daemon in pages; none (the
  /// reason printed, `status` set as call() sets it) when a page is refused
  /// or does not come.
  std::optional<std::vector<wire::envelope>> history(const std::string& session,
                                                     int& status) const;
};

} // namespace paratune::cli
