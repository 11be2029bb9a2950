// What a daemon guarantees a session, whatever its framework: one table,
// run for every registered framework (tests/fixtures/framework_cases.hpp).
// A cancel ends the session and stops its run; a Slurm job outlives a
// kill -9 and is followed again, never submitted twice; and a run that
// failed for a transient reason before the kill is still run again after
// it. The Slurm cases skip when no local Slurm runs (CI starts one).

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "tests/daemon/daemon_process.hpp"
#include "tests/e2e/local_slurm.hpp"
#include "tests/fixtures/framework_cases.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using control::control_op;
using namespace std::chrono_literals;

struct daemon_framework_guarantees : ::testing::TestWithParam<std::string> {
  void SetUp() override {
    dir = test::make_temp_dir("daemon-framework-" + GetParam());
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  const test::framework_case& framework() const {
    return test::framework_cases().at(GetParam());
  }

  /// Submits this framework's job with `parts`; the session's id.
  std::string submit(test::daemon_process& d, const test::job_parts& parts) {
    auto r = test::request_of(control_op::submit);
    r.job_path = test::write_file(dir, "job.yaml", framework().job(parts));
    r.job_yaml = framework().job(parts);
    const auto submitted = d.call(r);
    EXPECT_TRUE(submitted.ok) << submitted.error;
    return submitted.session;
  }

  /// The session's row once `done` holds (or after `limit`).
  template <class Done>
  control::session_row wait_for(test::daemon_process& d, const std::string& id, Done done,
                                std::chrono::seconds limit = 120s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    control::session_row row;
    while (std::chrono::steady_clock::now() < deadline) {
      const auto r = d.call(test::request_of(control_op::status, id));
      if (r.ok && !r.sessions.empty()) {
        row = r.sessions.front();
        if (done(row))
          return row;
      }
      std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << "session " << id << " did not get there in time:\n" << d.output();
    return row;
  }

  std::vector<wire::envelope> history(test::daemon_process& d, const std::string& id) {
    return d.call(test::request_of(control_op::history, id)).records;
  }

  std::string dir;
};

TEST_P(daemon_framework_guarantees, a_cancelled_session_ends_cancelled_with_its_run_stopped) {
  test::daemon_process d{dir + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  const auto id = submit(
    d, {{"{name: box, kind: local, capacity: 1, launch: [/bin/sh, -c, \"exec sleep 60\"]}"}, 2});
  wait_for(d, id, [](const auto& row) { return row.running == 1; });
  const auto started = std::chrono::steady_clock::now();
  const auto cancelled = d.call(test::request_of(control_op::cancel, id));
  ASSERT_TRUE(cancelled.ok) << cancelled.error;
  const auto row = wait_for(d, id, [](const auto& row) { return row.state != "running"; });
  EXPECT_EQ(row.state, "cancelled");
  EXPECT_EQ(row.text, "cancelled by a client");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
  // The run was stopped, not left to sleep out its minute.
  const auto until = std::chrono::steady_clock::now() + 20s;
  std::vector<test::run_view> runs;
  while (runs.empty() && std::chrono::steady_clock::now() < until) {
    runs = framework().runs(history(d, id));
    if (runs.empty() || runs.front().stopped.empty())
      runs.clear(), std::this_thread::sleep_for(100ms);
  }
  ASSERT_EQ(runs.size(), 1u) << d.output();
  EXPECT_EQ(runs.front().trial, 1);
  EXPECT_FALSE(runs.front().measured);
  EXPECT_NE(runs.front().stopped.find("cancelled"), std::string::npos) << runs.front().stopped;
  EXPECT_FALSE(d.call(test::request_of(control_op::cancel, id)).ok);
  d.stop();
}

// Two Slurm pools. Trial 1 loses a peer (or a host) on `fast`; its retry
// must run off `fast` while `slow` is up, so it waits for `slow`, where
// trial 2 holds the slot for a while. The daemon is killed with SIGKILL in
// that wait. The next daemon follows trial 2's batch job to its end, then
// runs the retry it was due: three runs, each batch job submitted once.
TEST_P(daemon_framework_guarantees, a_slurm_job_and_a_due_retry_outlive_a_kill_9) {
  if (!test::use_local_slurm())
    GTEST_SKIP() << test::no_local_slurm;
  const auto wrapper = test::write_file(
    dir, "trainer",
    "trial=$1; shift\n"
    "case $trial in\n"
    "  1) echo '" + framework().transient_line + "' >&2; exit 1 ;;\n"
    "  2) sleep 6 ;;\n"
    "esac\n"
    "exec \"$@\"\n");
  const auto launch = "[/bin/sh, " + wrapper + ", \"{trial}\", "
                      + framework().trainer(dir + "/job.yaml") + "]";
  const test::job_parts parts{
    {"{name: fast, kind: slurm, partition: a100, via: sbatch, capacity: 1, launch: " + launch + "}",
     "{name: slow, kind: slurm, partition: h100, via: sbatch, capacity: 1, launch: " + launch + "}"},
    3};
  const auto state = dir + "/state";
  std::string id;
  {
    test::daemon_process d{state};
    ASSERT_TRUE(d.up()) << d.output();
    id = submit(d, parts);
    // Trial 1 has failed, and trial 2 still runs: the retry waits.
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    bool failed = false;
    while (!failed && std::chrono::steady_clock::now() < deadline) {
      for (const auto& run : framework().runs(history(d, id)))
        failed = failed || (run.trial == 1 && !run.error.empty());
      std::this_thread::sleep_for(50ms);
    }
    ASSERT_TRUE(failed) << d.output();
    d.kill9();
  }
  test::daemon_process d{state};
  ASSERT_TRUE(d.up()) << d.output();
  const auto row = wait_for(d, id, [](const auto& row) { return row.state != "running"; });
  EXPECT_EQ(row.state, "finished") << row.text << "\n" << d.output();
  const auto records = history(d, id);
  const auto runs = framework().runs(records);
  ASSERT_EQ(runs.size(), 3u) << d.output();
  EXPECT_FALSE(runs[0].measured);
  EXPECT_NE(runs[0].error.find(framework().transient_line.substr(0, 40)), std::string::npos)
    << runs[0].error;
  // Trial 2 (whatever the search chose: it may not fit) was followed to
  // its own end, never interrupted.
  EXPECT_EQ(runs[1].error.find("interrupted"), std::string::npos) << runs[1].error;
  EXPECT_EQ(runs[1].retry_of, 0);
  EXPECT_EQ(runs[2].retry_of, 1);
  EXPECT_TRUE(runs[2].measured) << runs[2].error;
  // Each trial's batch job was submitted once: the second daemon attached
  // to trial 2's and ran nothing twice.
  std::map<int, int> submitted;
  for (const auto& e : records)
    if (e.type == wire::type_name<wire::trial_job>()
        && wire::body_of<wire::trial_job>(e).hosts.empty())
      ++submitted[e.trial];
  EXPECT_EQ(submitted, (std::map<int, int>{{1, 1}, {2, 1}, {3, 1}}));
  d.stop();
}

INSTANTIATE_TEST_SUITE_P(every_framework, daemon_framework_guarantees,
                         ::testing::ValuesIn(test::registered_framework_names()),
                         [](const auto& info) { return test::framework_test_name(info.param); });

} // namespace
} // namespace paratune
