// Issue 45, parts 6 and 9, on a session like the README's tour: the
// example job configs/examples/llama3-8b-a100x8.yaml on the simulated pool,
// with the early stopper on so that trials are stopped as on a real
// cluster. Each question the issue names gets the sentence the records bear
// out, and the markdown report opens on the answer and its command.

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct ask_tour : ::testing::Test {
  static void SetUpTestSuite() {
    dir = test::make_temp_dir("ask-tour");
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
    std::ifstream in(test::source_dir() + "/configs/examples/llama3-8b-a100x8.yaml");
    std::stringstream text;
    text << in.rdbuf();
    auto job = text.str();
    const auto at = job.find("train_iters: 12");
    ASSERT_NE(at, std::string::npos) << job;
    job.replace(at, 15, "train_iters: 30");
    job += "early_stop: {warmup: 2, stable_after: 5, tolerance: 0.02, rung: true}\n";
    const auto file = test::write_file(dir, "tour.yaml", job);
    const auto r = paratune({"tune", file, "--db", dir + "/pool", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    session = nlohmann::json::parse(r.out)["session"];
    const auto rep = paratune({"report", session, "--db", dir + "/pool", "--format", "json"});
    ASSERT_EQ(rep.status, 0) << rep.err;
    report = nlohmann::json::parse(rep.out);
  }
  static void TearDownTestSuite() { fs::remove_all(dir); }

  static test::program_result paratune(std::vector<std::string> args) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    return test::run_program(args);
  }
  static nlohmann::json ask(const std::string& question, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"ask", session, question, "--db", dir + "/pool", "--json"};
    args.insert(args.end(), more.begin(), more.end());
    const auto r = paratune(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  static const nlohmann::json& trial(int n) {
    for (const auto& t : report["trials"])
      if (t["index"] == n)
        return t;
    static const nlohmann::json none;
    return none;
  }

  static inline std::string dir, session;
  static inline nlohmann::json report;
};

// Before: "no analysis ranked or refused a candidate holding it", while the
// report showed trial 1's analysis ranking that layout as candidate 2 at 94%
// risk of running out of memory. Since tune's memory screen refuses a
// layout over the device before any analysis ranks it, the records name no
// candidate holding it, and the answer gives the screen's own reason,
// recomputed from the job record as every analysis screens it (the answer
// that names a ranking analysis and its OOM risk is
// tests/dialogue/ask_answers_test.cpp's why_never_names_the_analysis...).
TEST_F(ask_tour, why_never_tp1_pp1_gives_the_reason_the_records_bear_out) {
  const auto a = ask("why did you never try tp=1 pp=1?");
  EXPECT_EQ(a["topic"], "why_not");
  const auto text = a["answer"].get<std::string>();
  EXPECT_EQ(text.rfind("No trial held tp=1 and pp=1. No analysis ranked a candidate holding tp=1 "
                       "and pp=1: the memory screen refuses the best run with it before it is "
                       "ranked (memory screen: predicted peak ", 0), 0u) << text;
  EXPECT_NE(text.find(" exceeds 81920 MiB)."), std::string::npos) << text;
  EXPECT_EQ(text.find("no analysis ranked or refused"), std::string::npos) << text;

  // "are you sure?" after it: the model's measured error so far, not "no
  // measured trial had a prediction" (none held tp=1 pp=1).
  const auto sure = ask("are you sure?", {"--thread", std::to_string(a["thread"].get<int>())});
  EXPECT_EQ(sure["topic"], "sure");
  double sum = 0, worst = -1;
  int n = 0, worst_trial = 0;
  double worst_predicted = 0, worst_measured = 0;
  for (const auto& p : report["charts"]["throughput"]["points"]) {
    const double predicted = p["predicted_tflops"], measured = p["measured_tflops"];
    const double err = std::abs(measured / predicted - 1);
    sum += err;
    ++n;
    if (err > worst) {
      worst = err;
      worst_trial = p["trial"];
      worst_predicted = predicted;
      worst_measured = measured;
    }
  }
  ASSERT_GE(n, 5);
  EXPECT_EQ(sure["answer"].get<std::string>().rfind(fmt::format(
              "No measured trial held tp=1 and pp=1, so no run checks a prediction for it. Over "
              "{} measured trials, the predictions were off by {:.1f}% on average; the worst was "
              "trial {}: predicted {:.1f}, measured {:.1f} TFLOP/s/GPU.",
              n, 100 * sum / n, worst_trial, worst_predicted, worst_measured), 0),
            0u) << sure["answer"];
}

TEST_F(ask_tour, why_was_a_trial_stopped_gives_the_stops_own_reason) {
  const auto& t6 = trial(6);
  ASSERT_EQ(t6["status"], "stopped") << t6;
  ASSERT_EQ(t6["stop"], "stable") << t6;
  auto reason = t6["reason"].get<std::string>();
  ASSERT_EQ(reason.rfind("stable: the last 5 iterations lie within ", 0), 0u) << reason;
  const auto a = ask("why was trial 6 stopped?");
  EXPECT_EQ(a["topic"], "stopped");
  const auto text = a["answer"].get<std::string>();
  EXPECT_NE(text.find(") was stopped because its throughput had settled; its record says: "
                      + reason + ". By then it had measured "
                      + fmt::format("{:.1f}", t6["tflops_per_gpu"].get<double>())
                      + " TFLOP/s/GPU over "
                      + std::to_string(t6["iterations_scored"].get<int>())
                      + " scored iterations"),
            std::string::npos) << text;
  EXPECT_EQ(ask("why was trial 1 stopped?")["answer"].get<std::string>().rfind(
              "Trial 1 (", 0), 0u);
}

TEST_F(ask_tour, which_of_two_trials_compares_them_with_the_tie_rule) {
  const auto& t3 = trial(3);
  const auto& t6 = trial(6);
  // Trial 6 turned gradient-reduction overlap on over trial 3; both
  // measured within 1% at the same peak.
  ASSERT_EQ(t3["config"]["overlap_grad"], "false");
  ASSERT_EQ(t6["config"]["overlap_grad"], "true");
  const double f3 = t3["tflops_per_gpu"], f6 = t6["tflops_per_gpu"];
  ASSERT_LE(std::abs(f3 / f6 - 1), 0.01);
  ASSERT_EQ(t3["peak_memory_mib"], t6["peak_memory_mib"]);
  const auto a = ask("which should I use, trial 3 or 6?");
  EXPECT_EQ(a["topic"], "compare");
  const auto text = a["answer"].get<std::string>();
  EXPECT_EQ(text.rfind("Trial 3 (", 0), 0u) << text;
  EXPECT_NE(text.find(fmt::format(") measured {:.1f} TFLOP/s/GPU with a peak of {:.0f} MiB.", f3,
                                  t3["peak_memory_mib"].get<double>())),
            std::string::npos) << text;
  EXPECT_NE(text.find("They differ in overlap_grad (false in trial 3, true in trial 6)."),
            std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("Trials 3 and 6 measured within noise of each other ({:.1f} vs "
                                  "{:.1f} TFLOP/s/GPU, within 1%); trial 3 is chosen as the "
                                  "simpler configuration: 1 key fewer off its default than trial "
                                  "6, at the same memory headroom. Use trial 3.", f3, f6)),
            std::string::npos) << text;
}

// Part 9: the first 40 lines of the markdown report hold the best
// throughput, tp, pp, mbs and the production command.
TEST_F(ask_tour, the_first_40_lines_of_the_markdown_report_hold_the_answer) {
  const auto r = paratune({"report", session, "--db", dir + "/pool", "--format", "md"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string head, line;
  for (int i = 0; i < 40 && std::getline(lines, line); ++i)
    head += line + "\n";
  const auto& answer = report["answer"];
  const auto& config = answer["config"];
  EXPECT_NE(head.find(fmt::format("| Throughput | {:.1f} TFLOP/s per GPU |",
                                  answer["tflops_per_gpu"].get<double>())),
            std::string::npos) << head;
  const int tp = std::stoi(config["tp"].get<std::string>());
  const int pp = std::stoi(config["pp"].get<std::string>());
  EXPECT_NE(head.find(fmt::format("| Parallel sizes | tp {}, pp {}, dp {}, cp 1, ep 1, vpp 1, mbs "
                                  "{} |", tp, pp, 8 / (tp * pp), config["mbs"].get<std::string>())),
            std::string::npos) << head;
  // The command: its arguments' line, whole, inside the first 40 lines.
  std::string args;
  for (const auto& a : answer["megatron_args"])
    args += (args.empty() ? "" : " ") + a.get<std::string>();
  EXPECT_NE(head.find("```sh\n"), std::string::npos) << head;
  EXPECT_NE(head.find(args + "\n```"), std::string::npos) << head;
  // The answer says why this trial among those within noise of it.
  ASSERT_TRUE(answer["tie_break"].is_string()) << answer;
  EXPECT_NE(answer["tie_break"].get<std::string>().find(
              fmt::format("trial {} is chosen", answer["trial"].get<int>())),
            std::string::npos);
  EXPECT_NE(head.find(answer["tie_break"].get<std::string>()), std::string::npos) << head;
  // export picks the same trial and says the same.
  const auto exported = paratune({"export", session, "--db", dir + "/pool", "--format", "json"});
  ASSERT_EQ(exported.status, 0) << exported.err;
  const auto e = nlohmann::json::parse(exported.out);
  EXPECT_EQ(e["trial"], answer["trial"]);
  EXPECT_EQ(e["tie_break"], answer["tie_break"]);
}

// Part 9, TPU: configs/examples' TPU experiment, as the README's tour runs
// it. Its own mesh (pure data parallelism) is predicted not to fit, so the
// session starts elsewhere, and every answer says why the job's mesh was
// not run: the end of `tune`, the report, and `ask`.
TEST(tpu_tour, the_answer_says_why_the_jobs_own_mesh_was_not_run) {
  const auto dir = test::make_temp_dir("tpu-tour");
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  const auto bin = test::bin_dir() + "/paratune";
  const auto tuned = test::run_program({bin, "tune",
                                        test::source_dir() + "/configs/examples/llama3-8b-v6e-16.yaml",
                                        "--db", dir + "/pool", "--json"});
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  const auto j = nlohmann::json::parse(tuned.out);
  const std::string why = "the job's own mesh (data=16) was not run: predicted not to fit: a peak "
                          "of 139.3 GiB per chip against 30.1 GiB of usable HBM";
  EXPECT_EQ(j["job_mesh_verdict"],
            "predicted not to fit: a peak of 139.3 GiB per chip against 30.1 GiB of usable HBM")
    << j.dump();
  for (const auto& t : j["trials"])
    EXPECT_NE(t["mesh"], "data=16") << t;  // never run
  const auto md = test::run_program({bin, "report", j["session"], "--db", dir + "/pool",
                                     "--format", "md"});
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_NE(md.out.find(why), std::string::npos) << md.out;
  const auto asked = test::run_program({bin, "ask", j["session"], "which mesh is best?", "--db",
                                        dir + "/pool"});
  ASSERT_EQ(asked.status, 0) << asked.err;
  EXPECT_NE(asked.out.find("The j" + why.substr(5)), std::string::npos) << asked.out;
  fs::remove_all(dir);
}

} // namespace
} // namespace paratune
