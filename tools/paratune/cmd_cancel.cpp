// paratune cancel SESSION: ends a running session on the daemon; its
// running trials are stopped and recorded.

#include <iostream>

#include <CLI/CLI.hpp>

#include "tools/paratune/command.hpp"
#include "tools/paratune/daemon_client_options.hpp"

namespace paratune::cli {

namespace {

struct cancel_options {
  std::string session;
  daemon_client_options daemon;
};

int run_cancel(const cancel_options& o) {
  control::request r;
  r.op = control::to_string(control::control_op::cancel);
  r.session = o.session;
  int status = 0;
  if (!o.daemon.call(r, status))
    return status;
  std::cout << "session " << o.session << " cancelled\n";
  return 0;
}

command_action setup_cancel(CLI::App& app) {
  auto o = std::make_shared<cancel_options>();
  app.add_option("session", o->session, "the session's id")->required();
  o->daemon.add_to(app);
  return [o] { return run_cancel(*o); };
}

registrar cancel_command{{"cancel", "cancel a running session on the daemon", setup_cancel}};

} // namespace

} // namespace paratune::cli
