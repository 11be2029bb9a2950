// The guarantees paratune gives a trial, whatever its framework: one table
// of cases, run once for every framework registered
// (frameworks/framework.hpp). Each case runs `paratune tune` on a local
// pool whose trainer is a shell command of the test's, in the framework's
// own job file, and reads back the terminal and the pool.
//
// A framework registered without a job here fails
// every_registered_framework_has_a_case: a new framework is tested as
// the others are.

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "storage/message_pool.hpp"
#include "tests/fixtures/framework_cases.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

using test::framework_cases;
using test::job_parts;

/// The job's one pool: local, running `launch` (a YAML flow sequence).
job_parts local_pool(const std::string& launch, int trials) {
  return {{"{name: box, kind: local, capacity: 1, env: {POOL_MARK: from-pool},\n"
           "     launch: " + launch + "}"},
          trials};
}

constexpr const char* slurm_jwt = "eyJhbGciOiJIUzI1NiJ9.probe.c2lnbmF0dXJl";
constexpr const char* named_secret = "named-secret-7f3e1c0d";

struct framework_guarantees : ::testing::TestWithParam<std::string> {
  void SetUp() override {
    dir = test::make_temp_dir("framework-" + GetParam());
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
    // What paratune inherits, as from a login shell: a Slurm token it
    // always treats as secret, one the job names, one no job mentions.
    setenv("SLURM_JWT", slurm_jwt, 1);
    setenv("PARATUNE_TEST_SECRET", named_secret, 1);
    setenv("PARATUNE_TEST_UNNAMED", "unnamed-value", 1);
  }
  void TearDown() override {
    unsetenv("SLURM_JWT");
    unsetenv("PARATUNE_TEST_SECRET");
    unsetenv("PARATUNE_TEST_UNNAMED");
    fs::remove_all(dir);
  }

  /// `paratune tune` on this framework's job with `parts`.
  test::program_result tune(const job_parts& parts) {
    const auto job = test::write_file(dir, "job.yaml", framework_cases().at(GetParam()).job(parts));
    return test::run_program({test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool"});
  }

  /// Every record of every session in the pool.
  std::vector<wire::envelope> pool_records() {
    auto pool = message_pool::open(dir + "/pool", {false, true, false});
    EXPECT_TRUE(pool) << to_string(pool.error());
    std::vector<wire::envelope> all;
    if (!pool)
      return all;
    const auto sessions = (*pool)->sessions();
    EXPECT_TRUE(sessions);
    if (!sessions)
      return all;
    for (const auto& session : *sessions) {
      auto h = (*pool)->session_history(session);
      EXPECT_TRUE(h) << session;
      if (h)
        all.insert(all.end(), h->begin(), h->end());
    }
    return all;
  }

  std::string dir;
};

TEST(framework_guarantees_table, every_registered_framework_has_a_case) {
  const auto names = test::registered_framework_names();
  EXPECT_EQ(names, (std::vector<std::string>{"maxtext", "megatron-lm"}));
  for (const auto& name : names)
    EXPECT_TRUE(framework_cases().count(name)) << name << " has no case in this table";
}

// The secret probe: a trial prints a token it read from a file, the same
// value SLURM_JWT holds in paratune's environment. The terminal and the
// pool show "[redacted]", and the value is nowhere in the pool.
TEST_P(framework_guarantees, a_secret_a_trial_prints_is_redacted_on_the_terminal_and_in_the_pool) {
  const auto leak = test::write_file(dir, "leak.txt",
                                     std::string("token is ") + slurm_jwt + " and " + named_secret
                                       + "\n");
  const auto r = tune(local_pool("[/bin/sh, -c, \"cat " + leak + "; exit 1\"]", 1));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("token is [redacted] and [redacted]"), std::string::npos)
    << r.out << r.err;
  for (const auto* secret : {slurm_jwt, named_secret}) {
    EXPECT_EQ(r.out.find(secret), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find(secret), std::string::npos) << r.err;
  }
  const auto records = pool_records();
  ASSERT_FALSE(records.empty());
  bool redacted = false;
  for (const auto& e : records) {
    EXPECT_EQ(e.body.find(slurm_jwt), std::string::npos) << e.session << " " << e.type;
    EXPECT_EQ(e.body.find(named_secret), std::string::npos) << e.session << " " << e.type;
    redacted = redacted || e.body.find("token is [redacted] and [redacted]") != std::string::npos;
  }
  EXPECT_TRUE(redacted) << "no record holds the redacted line";
}

// A trial's environment is chosen, never inherited whole: the base
// variables, the pool's and the job's `env:`, what the framework's
// trainer needs; no secret, and nothing else of paratune's.
TEST_P(framework_guarantees, a_trial_sees_the_chosen_environment_and_no_secret) {
  const auto dump = dir + "/env.txt";
  tune(local_pool("[/bin/sh, -c, \"env > " + dump + "; exit 3\"]", 1));
  std::ifstream in(dump);
  ASSERT_TRUE(in) << "the trial wrote no " << dump;
  std::map<std::string, std::string> env;
  for (std::string line; std::getline(in, line);)
    env[line.substr(0, line.find('='))] = line.substr(line.find('=') + 1);
  EXPECT_EQ(env["JOB_MARK"], "from-job");
  EXPECT_EQ(env["POOL_MARK"], "from-pool");
  EXPECT_EQ(env["PYTHONUNBUFFERED"], "1");
  EXPECT_EQ(env["PATH"], std::getenv("PATH"));
  for (const char* absent : {"SLURM_JWT", "PARATUNE_TEST_SECRET", "PARATUNE_TEST_UNNAMED"})
    EXPECT_EQ(env.count(absent), 0u) << absent;
}

// A pool whose trainer cannot start is paused after three runs that never
// started; with no pool left the session fails with why, and the rest of
// the budget is not spent on the same error.
TEST_P(framework_guarantees, a_pool_that_cannot_start_its_trainer_is_paused_after_three_runs) {
  const auto r = tune(local_pool("[/nonexistent/train, \"{trial}\"]", 8));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("no pool is left to run trials on: pool 'box': 3 trials in a row never "
                       "started"),
            std::string::npos)
    << r.err;
  // A GPU trial's start is its trial_started record, a TPU run's its row.
  std::set<int> started;
  for (const auto& e : pool_records())
    if (e.type == wire::type_name<wire::trial_started>()
        || e.type == wire::type_name<wire::tpu_trial_row>())
      started.insert(e.trial);
  EXPECT_EQ(started, (std::set<int>{1, 2, 3}));
}

// A run that lost a peer or a host, in the framework's own words, runs
// again once, unchanged, and the retry is measured.
TEST_P(framework_guarantees, a_transient_failure_runs_again_once) {
  const auto& c = framework_cases().at(GetParam());
  const auto wrapper = test::write_file(
    dir, "fails-once",
    "if [ ! -e '" + dir + "/failed-once' ]; then\n"
    "  touch '" + dir + "/failed-once'\n"
    "  echo '" + c.transient_line + "' >&2\n"
    "  exit 1\n"
    "fi\n"
    "exec \"$@\"\n");
  const auto r = tune(local_pool("[/bin/sh, " + wrapper + ", " + c.trainer(dir + "/job.yaml") + "]", 2));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const auto runs = c.runs(pool_records());
  ASSERT_EQ(runs.size(), 2u) << r.out << r.err;
  EXPECT_EQ(runs[0].trial, 1);
  EXPECT_FALSE(runs[0].measured);
  EXPECT_NE(runs[0].error.find(c.transient_line.substr(0, 40)), std::string::npos)
    << runs[0].error;
  EXPECT_EQ(runs[1].trial, 2);
  EXPECT_EQ(runs[1].retry_of, 1);
  EXPECT_TRUE(runs[1].measured) << runs[1].error;
}

// A launch template that cannot render is refused when the job is read,
// with the same words whatever the framework, before any pool is touched.
TEST_P(framework_guarantees, a_bad_launch_template_is_refused_before_anything_runs) {
  const auto r = tune(local_pool("[/bin/echo, \"{no_such_value}\"]", 1));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("{no_such_value}"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/pool"));
  // Another framework's arguments are refused too, with the name to use.
  const auto& other = framework_cases().at(GetParam()).other_args;
  const auto o = tune(local_pool("[/bin/echo, \"" + other + "\"]", 1));
  EXPECT_EQ(o.status, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("pool 'box': field 'launch': " + other + " is another framework's"),
            std::string::npos)
    << o.err;
  EXPECT_FALSE(fs::exists(dir + "/pool"));
}

INSTANTIATE_TEST_SUITE_P(every_framework, framework_guarantees,
                         ::testing::ValuesIn(test::registered_framework_names()),
                         [](const auto& info) { return test::framework_test_name(info.param); });

} // namespace
} // namespace paratune
