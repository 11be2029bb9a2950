// paratune sessions [--db DIR | --daemon EP] [--json]: the sessions of a
// pool, newest first, as `list` prints a daemon's. A pool directory (`tune
// --db`, or a stopped daemon's STATE/pool) is read read-only through the
// daemon's own session index, which folds each session's records with the
// session ledger; a pool a running daemon holds is listed by that daemon.

#include <iostream>

#include <CLI/CLI.hpp>

#include "daemon/session_index.hpp"
#include "messages/ec.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/daemon_client_options.hpp"
#include "tools/paratune/json_output.hpp"
#include "tools/paratune/pool_reader.hpp"
#include "tools/paratune/session_rows_view.hpp"

namespace paratune::cli {

namespace {

struct sessions_options {
  std::string db = "paratune-pool";
  bool json = false;
  daemon_client_options daemon;
};

/// The pool directory's sessions; none (after saying why) when it does not read.
std::optional<std::vector<control::session_row>> pool_rows(const std::string& db) {
  const auto pool = open_existing_pool(db, pool_access::read);
  if (!pool)
    return std::nullopt;
  session_index index;
  if (auto read = index.refresh(*pool); !read) {
    std::cerr << "error: cannot read the sessions of " << db << ": " << describe(read.error())
              << "\n";
    return std::nullopt;
  }
  return index.rows();
}

std::optional<std::vector<control::session_row>> daemon_rows(const daemon_client_options& d,
                                                             int& status) {
  control::request r;
  r.op = control::to_string(control::control_op::list);
  auto reply = d.call(r, status);
  if (!reply)
    return std::nullopt;
  return reply->sessions;
}

int run_sessions(const sessions_options& o) {
  int status = 1;
  const auto rows = o.daemon.source() == session_source::pool
                      ? pool_rows(o.db)
                      : daemon_rows(o.daemon, status);
  if (!rows)
    return status;
  if (o.json)
    print_json(session_rows_json(*rows));
  else
    print_session_table(*rows);
  return 0;
}

command_action setup_sessions(CLI::App& app) {
  auto o = std::make_shared<sessions_options>();
  app.add_flag("--json", o->json, "print {\"sessions\": [...]} instead of a table");
  o->daemon.add_to(app,
                   app.add_option("--db", o->db, "the pool directory (default ./paratune-pool)"));
  return [o] { return run_sessions(*o); };
}

registrar sessions_command{{"sessions", "list the sessions of a pool directory (or a daemon), "
                                        "newest first",
                            setup_sessions}};

} // namespace

} // namespace paratune::cli
