// `paratune ask` with the built-in reasoner: answers from the pool's
// records alone (the session's measurements, the analyses' reasons, the
// diagnoses), threads kept in the pool, and refusals that name the problem.

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/config/job_loader.hpp"
#include "messages/codec.hpp"
#include "storage/message_pool.hpp"
#include "tests/e2e/small_session.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct ask_cli : ::testing::Test {
  static void SetUpTestSuite() {
    dir = test::make_temp_dir("ask-cli");
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
    job = test::write_file(dir, "job.yaml",
                           "name: llama3-8b-ask\nmodel: llama3-8b\ncluster: dgx-a100-80g\n"
                           "nodes: 1\nprecision: fp16\n"
                           "initial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: "
                           "full}\ntrials: 5\nsimulation: {seed: 7, train_iters: 12}\n");
    const auto r = paratune({"tune", job, "--db", dir + "/pool", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    tuned = nlohmann::json::parse(r.out);
  }
  static void TearDownTestSuite() { fs::remove_all(dir); }

  static test::program_result paratune(std::vector<std::string> args) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    return test::run_program(args);
  }

  static nlohmann::json ask(const std::string& question, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"ask", tuned["session"], question, "--db", dir + "/pool",
                                     "--json"};
    args.insert(args.end(), more.begin(), more.end());
    const auto r = paratune(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  static inline std::string dir, job;
  static inline nlohmann::json tuned;
};

TEST_F(ask_cli, which_is_best_quotes_the_measured_best_run) {
  const auto a = ask("Which configuration is best?");
  EXPECT_EQ(a["topic"], "best");
  EXPECT_EQ(a["by_model"], false);
  const auto& best = tuned["best"];
  EXPECT_NE(a["answer"].get<std::string>().find(
              fmt::format("The best configuration is trial {} (", best["trial"].get<int>())),
            std::string::npos) << a["answer"];
  EXPECT_NE(a["answer"].get<std::string>().find(
              fmt::format("at {:.1f} TFLOP/s/GPU", best["tflops_per_gpu"].get<double>())),
            std::string::npos) << a["answer"];
}

TEST_F(ask_cli, why_first_explains_the_most_recent_trial_that_ran) {
  const auto a = ask("Why this proposal first?");
  EXPECT_EQ(a["topic"], "why_first");
  const auto text = a["answer"].get<std::string>();
  int last = 0;
  for (const auto& t : tuned["trials"])
    if (t["status"] != "skipped")
      last = std::max(last, t["index"].get<int>());
  ASSERT_GT(last, 1);
  EXPECT_EQ(text.rfind(fmt::format("The most recent trial that ran is trial {} (", last), 0), 0u)
    << text;
  EXPECT_NE(text.find(" It was chosen as \""), std::string::npos) << text;
  EXPECT_NE(text.find(" because "), std::string::npos) << text;
}

TEST_F(ask_cli, a_value_outside_the_space_is_named_with_the_space) {
  const auto spec = load_job(job);
  std::string values;
  for (const auto& v : spec.search.at("tp"))
    values += (values.empty() ? "" : ", ") + v;
  const auto a = ask("What if I keep TP 3?");
  EXPECT_EQ(a["topic"], "what_if");
  EXPECT_EQ(a["keep"], (nlohmann::json{{"tp", "3"}}));
  EXPECT_EQ(a["answer"], "tp=3 is not in the search space (tp: " + values + ").");
}

TEST_F(ask_cli, what_if_holds_the_first_runs_value_and_compares_with_the_best) {
  // Trial 1 ran the initial configuration, TP 8.
  const auto a = ask("What if I keep TP 8?");
  const auto text = a["answer"].get<std::string>();
  if (tuned["best"]["config"]["tp"] == "8")
    EXPECT_NE(text.find("The session's best run already holds tp=8"), std::string::npos) << text;
  else
    EXPECT_NE(text.find("Holding tp=8: "), std::string::npos) << text;
  EXPECT_NE(text.find("trial 1 ("), std::string::npos) << text;
}

TEST_F(ask_cli, a_follow_up_stays_in_its_thread_and_threads_are_stored) {
  const auto first = ask("What happened in trial 2?");
  EXPECT_EQ(first["topic"], "trial");
  EXPECT_EQ(first["turn"], 1);
  const int thread = first["thread"];
  EXPECT_EQ(first["answer"].get<std::string>().rfind("Trial 2 ran ", 0), 0u) << first["answer"];
  const auto follow = ask("Are you sure?", {"--thread", std::to_string(thread)});
  EXPECT_EQ(follow["thread"], thread);
  EXPECT_EQ(follow["turn"], 2);
  EXPECT_EQ(follow["topic"], "sure");
  EXPECT_EQ(follow["trial"], 2);
  EXPECT_NE(follow["answer"].get<std::string>().find("the predictions were off by "),
            std::string::npos) << follow["answer"];
  auto pool = message_pool::open(dir + "/pool");
  ASSERT_TRUE(pool);
  auto h = (*pool)->session_history(tuned["session"]);
  ASSERT_TRUE(h);
  int in_thread = 0;
  for (const auto& e : *h)
    if (e.type == wire::type_name<wire::dialogue_turn>())
      in_thread += wire::body_of<wire::dialogue_turn>(e).thread == thread;
  EXPECT_EQ(in_thread, 2);
}

TEST_F(ask_cli, bad_input_is_refused_by_name_and_nothing_is_stored) {
  const auto session = tuned["session"].get<std::string>();
  const auto no_thread = paratune({"ask", session, "why?", "--db", dir + "/pool", "--thread",
                                   "999"});
  EXPECT_EQ(no_thread.status, 2);
  EXPECT_NE(no_thread.err.find("error: thread 999 does not exist in session " + session),
            std::string::npos) << no_thread.err;
  const auto empty = paratune({"ask", session, "  ", "--db", dir + "/pool"});
  EXPECT_EQ(empty.status, 2);
  EXPECT_EQ(empty.err, "error: the question is empty\n");
  const auto unknown = paratune({"ask", "s-nope", "why?", "--db", dir + "/pool"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_EQ(unknown.err, "error: no tuning session 's-nope' in the pool " + dir + "/pool\n");
  const auto no_pool = paratune({"ask", session, "why?", "--db", dir + "/none"});
  EXPECT_EQ(no_pool.status, 2);
}

/// A session whose trial 2 ran out of memory at micro batch 2, written to a
/// pool as the agents write it: "why not mbs 4?" is answered with that OOM
/// and the estimate it raised, not with the model's own word.
TEST(ask_why_not, answers_with_the_out_of_memory_trial_it_learned_from) {
  const auto dir = test::make_temp_dir("ask-why-not");
  const std::string id = "why-not";
  auto opened = test::small_session(8);
  opened.initial["tp"] = "2";
  opened.initial["recompute"] = "none";
  {
    auto pool = message_pool::open(dir + "/pool");
    ASSERT_TRUE(pool);
    ASSERT_TRUE((*pool)->append(wire::make_envelope(id, 0, opened)));
    wire::trial_result fits;
    fits.trial = 1;
    fits.config = opened.initial;
    fits.status = trial_status::succeeded;
    fits.tflops_per_gpu = 180;
    fits.peak_memory_mib = 60000;
    ASSERT_TRUE((*pool)->append(wire::make_envelope(id, 1, fits)));
    wire::trial_result oom;
    oom.trial = 2;
    oom.config = opened.initial;
    oom.config["mbs"] = "2";
    oom.status = trial_status::failed;
    oom.error_kind = failure_kind::oom;
    oom.reason = "CUDA out of memory";
    ASSERT_TRUE((*pool)->append(wire::make_envelope(id, 2, oom)));
  }
  const auto r = test::run_program({test::bin_dir() + "/paratune", "ask", id, "why not mbs 4?",
                                    "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto a = nlohmann::json::parse(r.out);
  EXPECT_EQ(a["topic"], "why_not");
  const auto text = a["answer"].get<std::string>();
  EXPECT_EQ(text.rfind("No trial held mbs=4. With mbs=4, the best run needs at least the memory of trial 2: known "
                       "failure: trial 2 ran out of memory at TP 2, PP 1, CP 1, MBS 2, recompute "
                       "none, and this configuration needs at least as much memory", 0), 0u)
    << text;
  EXPECT_NE(text.find("MiB device, until a run needing at least as much memory succeeds."),
            std::string::npos) << text;
  fs::remove_all(dir);
}

} // namespace
} // namespace paratune
