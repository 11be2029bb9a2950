// `paratune ask SESSION "QUESTION" [--db DIR | --daemon EP] [--thread N]
// [--json]`: a dialogue about a tuning session, grounded in the pool: why a
// proposal came first, what if a value is held fixed, which run is best,
// what happened in a trial, how far the predictions were off. The session's
// `reasoner:` decides who answers (a model for `dialogue`, else the
// built-in reasoner from its stored rationale). Each turn is stored in the
// pool, so `--thread N` follows up on thread N. A pool a running daemon
// holds is asked through the daemon (--daemon or $PARATUNE_DAEMON), which
// answers and stores the turn itself.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "core/input_error.hpp"
#include "daemon/session_dialogue.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/daemon_client_options.hpp"
#include "tools/paratune/json_output.hpp"
#include "tools/paratune/pool_reader.hpp"

namespace paratune::cli {

namespace {

struct ask_options {
  std::string id;
  std::string question;
  std::string db = "paratune-pool";
  int thread = 0;      ///< 0: a new thread
  bool json = false;
  daemon_client_options daemon; ///< --daemon or $PARATUNE_DAEMON: ask it
};

nlohmann::json turn_json(const wire::dialogue_turn& t) {
  return {{"thread", t.thread}, {"turn", t.turn},   {"question", t.question},
          {"topic", to_string(t.topic)}, {"keep", t.keep}, {"trial", t.trial},
          {"answer", t.answer}, {"by_model", t.by_model}, {"model", t.model},
          {"fallback", t.fallback}};
}

int print_turn(const wire::dialogue_turn& t, bool json) {
  if (json) {
    print_json(turn_json(t));
    return 0;
  }
  std::cout << t.answer << "\n";
  std::cout << "(thread " << t.thread << ", turn " << t.turn << "; "
            << (t.by_model ? "answered by " + t.model
                           : "answered by the built-in reasoner"
                               + (t.fallback.empty() ? std::string() : ": " + t.fallback))
            << ")\n";
  return 0;
}

/// Answered here from the pool directory, and stored there.
int ask_pool(const ask_options& o) {
  const auto pool = open_existing_pool(o.db, pool_access::write);
  if (!pool)
    return 1;
  const auto history = read_session(*pool, o.id);
  if (!history)
    return 1;
  auto asked = ask_session(o.id, *history, o.question, o.thread, "the pool " + o.db);
  if (auto stored = pool->append_batch(asked.records); !stored) {
    std::cerr << "error: cannot store the answer in " << o.db << ": "
              << describe(stored.error()) << "\n";
    return 1;
  }
  return print_turn(asked.turn, o.json);
}

/// Answered and stored by the daemon that holds the pool.
int ask_daemon(const ask_options& o) {
  control::request r;
  r.op = control::to_string(control::control_op::ask);
  r.session = o.id;
  r.question = o.question;
  r.thread = o.thread;
  int status = 1;
  const auto reply = o.daemon.call(r, status);
  if (!reply)
    return status;
  if (reply->records.empty()
      || reply->records.back().type != wire::type_name<wire::dialogue_turn>()) {
    std::cerr << "error: the daemon at " << o.daemon.where() << " answered without a turn\n";
    return 1;
  }
  return print_turn(wire::body_of<wire::dialogue_turn>(reply->records.back()), o.json);
}

int run_ask(const ask_options& o) {
  check_session_id(o.id);
  return o.daemon.source() == session_source::daemon ? ask_daemon(o) : ask_pool(o);
}

command_action setup_ask(CLI::App& sub) {
  auto o = std::make_shared<ask_options>();
  sub.add_option("SESSION", o->id, "the session id, as `tune` printed it")->required();
  sub.add_option("QUESTION", o->question,
                 "in English: \"why this proposal first?\", \"what if I keep TP 8?\", \"why "
                 "did trial 3 fail?\", \"are you sure?\"")
    ->required();
  auto* db = sub.add_option("--db", o->db, "the pool directory (default ./paratune-pool)");
  sub.add_option("--thread", o->thread, "follow up on this thread (default: a new one)")
    ->check(CLI::Range(1, 1000000));
  sub.add_flag("--json", o->json, "the turn as JSON");
  // A model behind the session's dialogue agent may take a while.
  o->daemon.timeout_s = 120;
  o->daemon.add_to(sub, db);
  return [o] { return run_ask(*o); };
}

} // namespace

static registrar ask_command{{"ask", "Ask about a tuning session: its proposals, trials and failures",
                    setup_ask}};

} // namespace paratune::cli
