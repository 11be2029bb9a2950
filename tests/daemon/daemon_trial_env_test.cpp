// A real daemon's trials get the environment paratune chose, never its
// own: its secrets do not reach a local trial, and a secret's value that a
// trial prints anyway is redacted in the pool, the report and the log.

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "messages/codec.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using control::control_op;

constexpr const char* api_key = "sk-proj-5d1c7e9a-never-shown";
constexpr const char* slurm_jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdW4iOiJ0dW5lciJ9.c2lnbmF0dXJl";
constexpr const char* daemon_only = "daemon-only-3b8f0d";

/// One trial on a local pool whose command is `command` run by /bin/sh.
std::string env_job_text(const std::string& name, const std::string& command) {
  return "name: " + name + "\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
         "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
         "trials: 1\n"
         "env: {JOB_MARK: from-job, SHARED_MARK: job}\n"
         "pools:\n"
         "  - {name: box, kind: local, capacity: 1, env: {POOL_MARK: from-pool, SHARED_MARK: pool},\n"
         "     launch: [/bin/sh, -c, \"" + command + "\"]}\n";
}

struct daemon_trial_env : ::testing::Test {
  void SetUp() override {
    dir = test::make_temp_dir("daemon-trial-env");
    // The daemon inherits these from the test, as it would from its unit file.
    setenv("OPENAI_API_KEY", api_key, 1);
    setenv("SLURM_JWT", slurm_jwt, 1);
    setenv("PARATUNE_TEST_DAEMON_ONLY", daemon_only, 1);
  }
  void TearDown() override {
    unsetenv("OPENAI_API_KEY");
    unsetenv("SLURM_JWT");
    unsetenv("PARATUNE_TEST_DAEMON_ONLY");
    std::filesystem::remove_all(dir);
  }

  control::reply submit_job(test::daemon_process& d, const std::string& text) {
    auto r = test::request_of(control_op::submit);
    r.job_yaml = text;
    return d.call(r);
  }

  /// The session's records once it ended.
  std::vector<wire::envelope> ended_history(test::daemon_process& d, const std::string& id) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto row = d.call(test::request_of(control_op::status, id));
    while (row.ok && row.sessions.at(0).state == "running"
           && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      row = d.call(test::request_of(control_op::status, id));
    }
    EXPECT_TRUE(row.ok) << row.error;
    EXPECT_EQ(row.sessions.at(0).state, "finished");
    const auto h = d.call(test::request_of(control_op::history, id));
    EXPECT_TRUE(h.ok) << h.error;
    return h.records;
  }

  static wire::trial_result only_result(const std::vector<wire::envelope>& records) {
    std::vector<wire::trial_result> results;
    for (const auto& e : records)
      if (e.type == wire::type_name<wire::trial_result>())
        results.push_back(wire::body_of<wire::trial_result>(e));
    EXPECT_EQ(results.size(), 1u);
    return results.empty() ? wire::trial_result{} : results.front();
  }

  std::string dir;
};

TEST_F(daemon_trial_env, a_local_trial_sees_its_chosen_environment_and_none_of_the_daemons) {
  test::daemon_process d{dir + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  const auto submitted = submit_job(d, env_job_text("env-dump", "env | sort; exit 3"));
  ASSERT_TRUE(submitted.ok) << submitted.error;
  const auto r = only_result(ended_history(d, submitted.session));
  EXPECT_EQ(r.status, trial_status::failed);
  EXPECT_EQ(r.exit_code, 3);
  std::string tail;
  for (const auto& line : r.log_tail)
    tail += line + "\n";
  for (const std::string& expected : std::vector<std::string>{
         "JOB_MARK=from-job\n", "POOL_MARK=from-pool\n", "SHARED_MARK=job\n", "PYTHONUNBUFFERED=1\n",
        "CUDA_DEVICE_MAX_CONNECTIONS=1\n", "PATH=" + std::string(std::getenv("PATH")) + "\n"})
    EXPECT_NE(tail.find(expected), std::string::npos) << expected << " in\n" << tail;
  for (const char* absent : {"OPENAI_API_KEY", api_key, "SLURM_JWT", slurm_jwt,
                             "PARATUNE_TEST_DAEMON_ONLY", daemon_only, "PARATUNE_SOURCE_DIR",
                             "[redacted]"})
    EXPECT_EQ(tail.find(absent), std::string::npos) << absent << " in\n" << tail;
  d.stop();
}

TEST_F(daemon_trial_env, a_secret_a_trial_prints_is_redacted_in_the_pool_the_report_and_the_log) {
  // The trial reads the secrets from a file the daemon's environment never
  // gave it, as a trial that found them on a shared disk would.
  const auto leak = test::write_file(dir, "leak.txt",
                                     std::string("key=") + api_key + " jwt=" + slurm_jwt + "\n");
  const auto config = test::write_file(dir, "daemon.yaml", "secret_env: [OPENAI_API_KEY]\n");
  test::daemon_process d{dir + "/state", {"--config", config, "--log-format", "json"}};
  ASSERT_TRUE(d.up()) << d.output();

  // A job that names a secret, or a name no environment can hold, is refused.
  const std::string secret_words =
    " is a secret (SLURM_JWT, a reasoner's api_key_env, a pool's token_env or secret_env) and "
    "is never passed to a trial";
  const auto with_env = [](const std::string& env) {
    return "name: x\nmodel: llama3-8b\ncluster: dgx-a100-80g\n"
           "initial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192}\nenv: " + env + "\n";
  };
  EXPECT_EQ(submit_job(d, with_env("{OPENAI_API_KEY: mine}")).error,
            "the submitted job: field 'env': OPENAI_API_KEY" + secret_words);
  EXPECT_EQ(submit_job(d, with_env("{SLURM_JWT: mine}")).error,
            "the submitted job: field 'env': SLURM_JWT" + secret_words);
  EXPECT_EQ(submit_job(d, with_env("{BAD-NAME: 1}")).error,
            "the submitted job: field 'env': 'BAD-NAME' is not an environment variable name "
            "([A-Za-z_][A-Za-z0-9_]*)");

  // The job's name carries the token too: the daemon logs it at submit.
  const auto submitted =
    submit_job(d, env_job_text(std::string("leak-") + slurm_jwt, "cat " + leak + "; exit 3"));
  ASSERT_TRUE(submitted.ok) << submitted.error;
  const auto& id = submitted.session;
  const auto records = ended_history(d, id);
  const auto r = only_result(records);
  ASSERT_FALSE(r.log_tail.empty());
  EXPECT_EQ(r.log_tail.back(), "key=[redacted] jwt=[redacted]");
  // Read back from the pool: no record a trial produced holds either value
  // (the session_opened keeps the job's text as submitted, its name included).
  for (const auto& e : records) {
    if (e.type == wire::type_name<wire::session_opened>())
      continue;
    EXPECT_EQ(e.body.find(api_key), std::string::npos) << e.type;
    EXPECT_EQ(e.body.find(slurm_jwt), std::string::npos) << e.type;
  }
  const auto report = test::run_program(
    {test::bin_dir() + "/paratune", "report", id, "--daemon", d.control()});
  ASSERT_EQ(report.status, 0) << report.err;
  // The report shows no log tail; the job's name, raw in the pool's
  // session_opened, is redacted as the report is written.
  EXPECT_NE(report.out.find("# paratune report: leak-[redacted]\n"), std::string::npos)
    << report.out;
  EXPECT_EQ(report.out.find(api_key), std::string::npos);
  EXPECT_EQ(report.out.find(slurm_jwt), std::string::npos);
  d.stop();
  const auto log = d.output();
  EXPECT_NE(log.find("\"msg\":\"daemon: session " + id + " submitted: leak-[redacted] on 8 x "),
            std::string::npos) << log;
  EXPECT_EQ(log.find(api_key), std::string::npos) << log;
  EXPECT_EQ(log.find(slurm_jwt), std::string::npos) << log;
}

// `paratune tune` launches its trials through the same validator: the same
// environment, chosen the same way.
TEST_F(daemon_trial_env, tune_gives_a_local_trial_the_same_chosen_environment) {
  const auto job = test::write_file(
    dir, "job.yaml", env_job_text("tune-env", "env > {workdir}/env.txt; exit 3"));
  const auto r = test::run_program(
    {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 1) << r.err;  // its one trial failed: no best configuration
  const auto session = nlohmann::json::parse(r.out).at("session").get<std::string>();
  std::ifstream in(dir + "/pool/trials/" + session + "/1/env.txt");
  ASSERT_TRUE(in) << "no env.txt for session " << session;
  std::set<std::string> names;
  std::string dumped;
  for (std::string line; std::getline(in, line);) {
    dumped += line + "\n";
    names.insert(line.substr(0, line.find('=')));
  }
  for (const char* expected : {"JOB_MARK", "POOL_MARK", "SHARED_MARK", "PYTHONUNBUFFERED",
                               "CUDA_DEVICE_MAX_CONNECTIONS", "PATH"})
    EXPECT_TRUE(names.count(expected)) << expected << " in\n" << dumped;
  // Nothing else but the base variables (and what the shell sets itself).
  for (const auto& name : names) {
    const bool base = name == "PATH" || name == "HOME" || name == "USER" || name == "LOGNAME"
                      || name == "LANG" || name == "TZ" || name == "TMPDIR"
                      || name.rfind("LC_", 0) == 0;
    const bool shell = name == "PWD" || name == "SHLVL" || name == "_" || name == "OLDPWD";
    const bool named = name == "JOB_MARK" || name == "POOL_MARK" || name == "SHARED_MARK"
                       || name == "PYTHONUNBUFFERED" || name == "CUDA_DEVICE_MAX_CONNECTIONS";
    EXPECT_TRUE(base || shell || named) << name << " in\n" << dumped;
  }
  EXPECT_EQ(dumped.find(api_key), std::string::npos) << dumped;
  EXPECT_EQ(dumped.find(slurm_jwt), std::string::npos) << dumped;
}

} // namespace
} // namespace paratune
