// A TPU experiment hosted by the daemon, as a GPU job is: submitted with
// `paratune submit`, listed, killed with SIGKILL in the middle of a run and
// resumed by the next daemon, watched to its end, reported and exported
// through the daemon; and a second one cancelled.

#include <chrono>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "messages/codec.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;
using control::control_op;
using namespace std::chrono_literals;

struct daemon_tpu : ::testing::Test {
  void SetUp() override { dir = test::make_temp_dir("daemon-tpu"); }
  void TearDown() override { fs::remove_all(dir); }

  /// ASAP's v6e-16 experiment, run by the simulated pool's trainer at
  /// `time_scale` wall seconds per simulated second.
  std::string experiment(int trials, double time_scale) {
    std::ifstream in(test::source_dir() + "/tests/fixtures/asap/v6e-16-hbm/experiment.yaml");
    std::string text{std::istreambuf_iterator<char>(in), {}};
    text += "trials: " + std::to_string(trials) + "\nsteps: 8\nsimulation: {time_scale: "
            + std::to_string(time_scale) + "}\n";
    const auto path = dir + "/experiment-" + std::to_string(trials) + ".yaml";
    std::ofstream(path) << text;
    return path;
  }

  test::program_result cli(std::vector<std::string> args, const test::daemon_process& d) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    args.insert(args.end(), {"--daemon", d.control()});
    return test::run_program(args);
  }

  /// `list`'s row of `id`, once `ready` holds of it (or the last one seen).
  control::session_row wait_for(test::daemon_process& d, const std::string& id,
                                const std::function<bool(const control::session_row&)>& ready) {
    control::session_row last;
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    while (std::chrono::steady_clock::now() < deadline) {
      for (const auto& row : d.call(test::request_of(control_op::list)).sessions)
        if (row.id == id)
          last = row;
      if (!last.id.empty() && ready(last))
        return last;
      std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << "session " << id << " never got there: " << last.state << ", "
                  << last.trials_done << " done, " << last.running << " running";
    return last;
  }

  std::string dir;
};

TEST_F(daemon_tpu, a_tpu_session_survives_kill_9_and_is_watched_reported_and_exported) {
  const auto state = dir + "/state";
  std::string id;
  {
    test::daemon_process d(state);
    ASSERT_TRUE(d.up()) << d.output();
    const auto submitted = cli({"submit", experiment(4, 0.05), "--json"}, d);
    ASSERT_EQ(submitted.status, 0) << submitted.err;
    id = nlohmann::json::parse(submitted.out)["session"];
    // Killed while its second run trains: the first ended and was diagnosed.
    const auto row = wait_for(d, id, [](const auto& r) { return r.trials_done == 1 && r.running == 1; });
    EXPECT_EQ(row.state, "running");
    EXPECT_EQ(row.job_name, "asap-v6e-16-hbm");
    EXPECT_EQ(row.model, "gpt3-7b");
    EXPECT_EQ(row.trials_budget, 4);
    d.kill9();
  }
  test::daemon_process d(state);
  ASSERT_TRUE(d.up()) << d.output();
  // watch follows it from its first record to its end.
  const auto watched = cli({"watch", id, "--json"}, d);
  ASSERT_EQ(watched.status, 0) << watched.err;
  std::vector<nlohmann::json> events;
  std::istringstream lines{watched.out};
  for (std::string line; std::getline(lines, line);)
    events.push_back(nlohmann::json::parse(line));
  ASSERT_FALSE(events.empty());
  const auto end = events.back();
  EXPECT_EQ(end["event"], "end");
  EXPECT_EQ(end["state"], "finished");
  const auto& trials = end["report"]["trials"];
  ASSERT_EQ(trials.size(), 4u) << end.dump(1);
  EXPECT_EQ(events.size(), 5u); // each run as it ended, then the end
  // Run 2 went with the killed daemon; the next daemon's validator ran it
  // again under its own number, as it does a GPU trial: the pool says so.
  for (int n = 0; n < 4; ++n) {
    SCOPED_TRACE("trial " + std::to_string(n + 1));
    EXPECT_EQ(trials[n]["error"], "");
    EXPECT_EQ(trials[n]["retry_of"], 0);
    EXPECT_GT(trials[n]["step_time_ms"].get<double>(), 0);
  }
  {
    const auto history = d.call(test::request_of(control_op::history, id)).records;
    int interrupted = 0;
    for (const auto& e : history)
      if (e.type == wire::type_name<wire::trial_interrupted>()) {
        ++interrupted;
        EXPECT_EQ(e.trial, 2);
      }
    EXPECT_EQ(interrupted, 1);
  }
  const auto row = wait_for(d, id, [](const auto& r) { return r.state != "running"; });
  EXPECT_EQ(row.state, "finished");
  EXPECT_EQ(row.trials_done, 4);
  EXPECT_EQ(row.best_trial, end["report"]["best"]["trial"].get<int>());
  // `list` names the best run; a TPU session has no TFLOP/s per GPU to show.
  const auto listed = cli({"list"}, d);
  ASSERT_EQ(listed.status, 0) << listed.err;
  EXPECT_NE(listed.out.find("- (trial " + std::to_string(row.best_trial) + ")  asap-v6e-16-hbm "
                            "(gpt3-7b on tpu-v6e 4x4)"),
            std::string::npos)
      << listed.out;
  // report through the daemon, in every format.
  const auto md = cli({"report", id, "--format", "md"}, d);
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_EQ(md.out.rfind("# paratune report: TPU session " + id, 0), 0u) << md.out;
  EXPECT_NE(md.out.find("| simulated |"), std::string::npos) << md.out;
  const auto js = cli({"report", id, "--format", "json"}, d);
  ASSERT_EQ(js.status, 0) << js.err;
  EXPECT_EQ(nlohmann::json::parse(js.out), end["report"]);
  const auto html = cli({"report", id, "--format", "html"}, d);
  ASSERT_EQ(html.status, 0) << html.err;
  EXPECT_NE(html.out.find("<h1>paratune report: TPU session " + id + "</h1>"), std::string::npos);
  // export: the best run as MaxText's overrides, the only form it has.
  const auto exported = cli({"export", id, "--format", "maxtext"}, d);
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_NE(exported.out.find("per_device_batch_size=0.5"), std::string::npos) << exported.out;
  EXPECT_NE(exported.out.find("gradient_accumulation_steps=4"), std::string::npos);
  // As JSON, the same overrides, as a GPU session's best is exported.
  const auto as_json = cli({"export", id, "--format", "json"}, d);
  ASSERT_EQ(as_json.status, 0) << as_json.err;
  const auto j = nlohmann::json::parse(as_json.out);
  EXPECT_EQ(j["framework"], "maxtext");
  EXPECT_EQ(j["trial"], row.best_trial);
  EXPECT_EQ(j["step_time_ms"], end["report"]["best"]["step_time_ms"]);
  EXPECT_EQ(j["command"].get<std::string>() + "\n", exported.out);
  EXPECT_NE(std::find(j["maxtext_args"].begin(), j["maxtext_args"].end(),
                      "per_device_batch_size=0.5"),
            j["maxtext_args"].end())
    << j.dump(1);
  const auto megatron = cli({"export", id}, d);
  EXPECT_EQ(megatron.status, 2);
  EXPECT_NE(megatron.err.find("use --format maxtext or --format json"), std::string::npos)
    << megatron.err;
  // ask through the daemon: answered from the runs, and stored as a turn.
  const auto asked = cli({"ask", id, "which mesh is best?"}, d);
  ASSERT_EQ(asked.status, 0) << asked.err;
  EXPECT_EQ(asked.out.rfind("The fastest mesh is trial " + std::to_string(row.best_trial)
                              + " (mesh " + end["report"]["best"]["mesh"].get<std::string>()
                              + ")", 0), 0u) << asked.out;
  EXPECT_NE(asked.out.find("(thread 1, turn 1; answered by the built-in reasoner)"),
            std::string::npos) << asked.out;
  const auto second = cli({"ask", id, "why did trial 2 fail?"}, d);
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(second.out.rfind("Trial 2 did not fail. Trial 2 ran mesh "
                               + trials[1]["mesh"].get<std::string>(), 0),
            0u)
    << second.out;
}

TEST_F(daemon_tpu, a_cancelled_tpu_session_ends_cancelled_with_its_run_stopped) {
  test::daemon_process d(dir + "/state");
  ASSERT_TRUE(d.up()) << d.output();
  auto r = test::request_of(control_op::submit);
  r.job_path = experiment(20, 0.5);
  std::ifstream in(r.job_path);
  r.job_yaml.assign(std::istreambuf_iterator<char>(in), {});
  const auto submitted = d.call(r);
  ASSERT_TRUE(submitted.ok) << submitted.error;
  const auto id = submitted.session;
  wait_for(d, id, [](const auto& row) { return row.running == 1; });
  const auto cancelled = d.call(test::request_of(control_op::cancel, id));
  ASSERT_TRUE(cancelled.ok) << cancelled.error;
  const auto row = wait_for(d, id, [](const auto& row) { return row.state != "running"; });
  EXPECT_EQ(row.state, "cancelled");
  EXPECT_EQ(row.text, "cancelled by a client");
  const auto js = cli({"report", id, "--format", "json"}, d);
  ASSERT_EQ(js.status, 0) << js.err;
  const auto report = nlohmann::json::parse(js.out);
  ASSERT_EQ(report["trials"].size(), 1u) << report.dump(1);
  EXPECT_EQ(report["trials"][0]["stopped"], "cancelled by a client");
  // A second cancel: it is not running any more.
  EXPECT_FALSE(d.call(test::request_of(control_op::cancel, id)).ok);
}

} // namespace
} // namespace paratune
