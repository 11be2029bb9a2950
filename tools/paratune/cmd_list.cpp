// paratune list: the daemon's sessions, newest first.

#include <cstdio>

#include <CLI/CLI.hpp>

#include "tools/paratune/command.hpp"
#include "tools/paratune/daemon_client_options.hpp"
#include "tools/paratune/json_output.hpp"
#include "tools/paratune/session_rows_view.hpp"

namespace paratune::cli {

namespace {

struct list_options {
  bool json = false;
  daemon_client_options daemon;
};

int run_list(const list_options& o) {
  control::request r;
  r.op = control::to_string(control::control_op::list);
  int status = 0;
  auto reply = o.daemon.call(r, status);
  if (!reply)
    return status;
  // The ports the daemon took (free ones by default) come with its rows.
  if (o.json) {
    auto doc = session_rows_json(reply->sessions);
    doc["relay_ingress"] = reply->relay_ingress;
    doc["http"] = reply->http;
    print_json(doc);
  } else {
    print_session_table(reply->sessions);
    std::printf("daemon %s: dashboard %s, relay ingress %s\n", o.daemon.where().c_str(),
                reply->http.empty() ? "off" : ("http://" + reply->http).c_str(),
                reply->relay_ingress.c_str());
  }
  return 0;
}

command_action setup_list(CLI::App& app) {
  auto o = std::make_shared<list_options>();
  app.add_flag("--json", o->json, "print {\"sessions\": [...]} instead of a table");
  o->daemon.add_to(app);
  return [o] { return run_list(*o); };
}

registrar list_command{{"list", "list the daemon's sessions, newest first", setup_list}};

} // namespace

} // namespace paratune::cli
