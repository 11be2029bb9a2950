#include "tools/paratune/daemon_client_options.hpp"

#include <iostream>

#include <CLI/CLI.hpp>

#include <cstdlib>

#include "daemon/control_client.hpp"
#include "daemon/curve_keys.hpp"
#include "daemon/daemon_config.hpp"
#include "messages/ec.hpp"
#include "tools/paratune/command.hpp"

namespace paratune::cli {

void daemon_client_options::add_to(CLI::App& app) {
  app.add_option("--daemon", endpoint,
                 "the daemon's control endpoint (default: $PARATUNE_DAEMON, else "
                   + daemon_config{}.control + ")");
  app.add_option("--timeout", timeout_s, "seconds to wait for the daemon's answer")
    ->check(CLI::Range(1, 3600));
  app.add_option("--server-key", server_key,
                 "the daemon's public key file (paratune keygen), when it speaks CURVE "
                 "(default: $PARATUNE_SERVER_KEY)");
}

caf::expected<control::reply> daemon_client_options::call(const control::request& r,
                                                          int& status) const {
  auto key_file = server_key;
  if (const char* env = std::getenv("PARATUNE_SERVER_KEY"); key_file.empty() && env)
    key_file = env;
  const auto key = key_file.empty() ? std::string() : read_curve_key_file(key_file).public_key;
  control_client client{daemon_endpoint(endpoint), std::chrono::seconds(timeout_s), key};
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
