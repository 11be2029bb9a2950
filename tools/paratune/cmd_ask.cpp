// `paratune ask SESSION "QUESTION" [--db DIR] [--thread N] [--json]`: a
// dialogue about a tuning session, grounded in the pool: why a proposal
// came first, what if a value is held fixed, which run is best, what
// happened in a trial, how far the predictions were off. The session's
// `reasoner:` decides who answers (a model for `dialogue`, else the
// built-in reasoner from its stored rationale). Each turn is stored in the
// pool, so `--thread N` follows up on thread N.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "actors/llm_exchanges.hpp"
#include "adapters/config/catalog.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/llm/model_chat.hpp"
#include "core/input_error.hpp"
#include "dialogue/dialogue.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "messages/conversions.hpp"
#include "tools/paratune/command.hpp"
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
};

nlohmann::json turn_json(const wire::dialogue_turn& t) {
  return {{"thread", t.thread}, {"turn", t.turn},   {"question", t.question},
          {"topic", to_string(t.topic)}, {"keep", t.keep}, {"trial", t.trial},
          {"answer", t.answer}, {"by_model", t.by_model}, {"model", t.model},
          {"fallback", t.fallback}};
}

int run_ask(const ask_options& o) {
  check_session_id(o.id);
  const auto pool = open_existing_pool(o.db, pool_access::write);
  if (!pool)
    return 1;
  const auto history = read_session(*pool, o.id);
  if (!history)
    return 1;
  const auto facts = facts_of(o.id, *history);
  if (history->empty() || facts.summary.job.job_name.empty())
    throw input_error("no GPU tuning session '" + o.id + "' in the pool " + o.db);
  const auto settings = wire::reasoners_of(facts.summary.job).of(reasoning_agent::dialogue);
  const bool asks_model = settings.mode == reasoner_mode::llm;
  const auto answer = answer_question(
    facts, o.question, o.thread, settings,
    asks_model ? read_text_file(configs_dir() + "/prompts/dialogue.md") : std::string(),
    asks_model ? model_chat(settings) : chat_fn{});
  // The model's asks and the turn in one batch: a thread never holds a
  // turn without the exchanges behind it.
  std::vector<wire::envelope> records;
  for (auto& x : exchanges_of(answer.asks, reasoning_agent::dialogue, settings.mode, 0, 0,
                              answer.turn.by_model))
    records.push_back(wire::make_envelope(o.id, 0, x));
  records.push_back(wire::make_envelope(o.id, 0, answer.turn));
  if (auto stored = pool->append_batch(records); !stored) {
    std::cerr << "error: cannot store the answer in " << o.db << ": "
              << describe(stored.error()) << "\n";
    return 1;
  }
  if (o.json) {
    print_json(turn_json(answer.turn));
    return 0;
  }
  std::cout << answer.turn.answer << "\n";
  std::cout << "(thread " << answer.turn.thread << ", turn " << answer.turn.turn << "; "
            << (answer.turn.by_model ? "answered by " + answer.turn.model
                                     : "answered by the built-in reasoner"
                                         + (answer.turn.fallback.empty()
                                              ? std::string()
                                              : ": " + answer.turn.fallback))
            << ")\n";
  return 0;
}

command_action setup_ask(CLI::App& sub) {
  auto o = std::make_shared<ask_options>();
  sub.add_option("SESSION", o->id, "the session id, as `tune` printed it")->required();
  sub.add_option("QUESTION", o->question,
                 "in English: \"why this proposal first?\", \"what if I keep TP 8?\", \"why "
                 "did trial 3 fail?\", \"are you sure?\"")
    ->required();
  sub.add_option("--db", o->db, "the pool directory (default ./paratune-pool)");
  sub.add_option("--thread", o->thread, "follow up on this thread (default: a new one)")
    ->check(CLI::Range(1, 1000000));
  sub.add_flag("--json", o->json, "the turn as JSON");
  return [o] { return run_ask(*o); };
}

} // namespace

static registrar ask_command{{"ask", "Ask about a tuning session: its proposals, trials and failures",
                    setup_ask}};

} // namespace paratune::cli
