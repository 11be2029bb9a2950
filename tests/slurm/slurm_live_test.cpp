// Both Slurm clients against the real single-node Slurm of tools/slurm-local.
// Skipped when it is not running: `eval "$(tools/slurm-local env)"` exports
// PARATUNE_SLURM_CONF and the REST addresses these tests read. The live
// tests take a lock in the state folder, so ctest -j runs them one at a
// time (the node has two CPUs; a test that needs both must get them).
#include "adapters/slurm/slurm_cli_client.hpp"
#include "adapters/slurm/slurmrestd_client.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <pwd.h>
#include <sys/wait.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace paratune {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

enum class client_kind { cli, rest_unix, rest_jwt };

std::string name_of(client_kind k) {
  switch (k) {
    case client_kind::cli: return "cli";
    case client_kind::rest_unix: return "rest_unix";
    case client_kind::rest_jwt: return "rest_jwt";
  }
  return "?";
}

// ctest shows the parameter by this name rather than as bytes.
void PrintTo(client_kind k, std::ostream* os) { *os << name_of(k); }

std::unique_ptr<slurm_client> make_client(client_kind k) {
  switch (k) {
    case client_kind::cli: {
      slurm_cli_options o;
      o.slurm_conf = env_or_empty("PARATUNE_SLURM_CONF");
      return std::make_unique<slurm_cli_client>(o);
    }
    case client_kind::rest_unix: {
      slurmrestd_options o;
      o.address = env_or_empty("PARATUNE_SLURM_REST_SOCKET");
      return std::make_unique<slurmrestd_client>(o);
    }
    case client_kind::rest_jwt: {
      slurmrestd_options o;
      o.address = env_or_empty("PARATUNE_SLURM_REST_URL");
      o.user_name = env_or_empty("PARATUNE_SLURM_REST_USER");
      auto token = slurm_token_from_file(env_or_empty("PARATUNE_SLURM_JWT_FILE"));
      if (token)
        o.token = token.value();
      return std::make_unique<slurmrestd_client>(o);
    }
  }
  return nullptr;
}

struct slurm_live : ::testing::TestWithParam<client_kind> {
  void SetUp() override {
    if (env_or_empty("PARATUNE_SLURM_CONF").empty())
      GTEST_SKIP() << "no local Slurm: run tools/slurm-local start and "
                      "eval \"$(tools/slurm-local env)\"";
    std::string lock = env_or_empty("PARATUNE_SLURM_STATE") + "/live-tests.lock";
    lock_fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(lock_fd_, 0) << lock;
    flock(lock_fd_, LOCK_EX);
    client_ = make_client(GetParam());
    // REST jobs run as slurmrest, which must write its output here.
    char tmpl[] = "/tmp/paratune-slurm-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    chmod(dir_.c_str(), 01777);
  }
  void TearDown() override {
    if (client_)
      for (slurm_job_id id : submitted_)
        client_->cancel(id);  // whatever is left; errors do not matter here
    if (!dir_.empty())
      fs::remove_all(dir_);
    if (lock_fd_ >= 0)
      close(lock_fd_);
  }

  slurm_job_request job(const std::string& partition, const std::string& body) {
    slurm_job_request j;
    j.name = "paratune-test-" + name_of(GetParam());
    j.partition = partition;
    j.time_limit_minutes = 10;
    j.working_directory = dir_;
    j.output_path = dir_ + "/out-%j.log";
    j.environment = {{"PATH", "/usr/bin:/bin"}, {"PARATUNE_TRIAL", "trial on " + partition}};
    j.script = "#!/bin/bash\n" + body;
    return j;
  }
  slurm_job_id submit(const slurm_job_request& j) {
    auto id = client_->submit(j);
    EXPECT_TRUE(id) << to_string(id.error().kind) << ": " << id.error().message;
    if (!id)
      return 0;
    submitted_.push_back(id.value());
    return id.value();
  }
  // Polls until `done` holds or the time is up; returns the last status.
  slurm_job_status wait_for(slurm_job_id id,
                            const std::function<bool(const slurm_job_status&)>& done,
                            std::chrono::seconds limit = 60s) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    slurm_job_status last;
    while (std::chrono::steady_clock::now() < deadline) {
      auto s = client_->state(id);
      EXPECT_TRUE(s) << to_string(s.error().kind) << ": " << s.error().message;
      if (!s)
        return last;
      last = s.value();
      seen_.push_back(last.state);
      if (done(last))
        return last;
      std::this_thread::sleep_for(200ms);
    }
    ADD_FAILURE() << "job " << id << " still " << to_string(last.state) << " after "
                  << limit.count() << " s";
    return last;
  }
  slurm_job_status wait_final(slurm_job_id id) {
    return wait_for(id, [](const slurm_job_status& s) { return is_final(s.state); });
  }
  std::string output_of(slurm_job_id id) {
    std::ifstream in(dir_ + "/out-" + std::to_string(id) + ".log");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  int lock_fd_ = -1;
  std::unique_ptr<slurm_client> client_;
  std::string dir_;
  std::vector<slurm_job_id> submitted_;
  std::vector<slurm_state> seen_;
};

TEST_P(slurm_live, ping_answers_up) {
  auto p = client_->ping();
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p.value().up);
  EXPECT_FALSE(p.value().controller.empty());
}

TEST_P(slurm_live, a_job_on_each_partition_runs_and_completes_with_exit_code_0) {
  for (const char* partition : {"a100", "h100"}) {
    SCOPED_TRACE(partition);
    seen_.clear();
    slurm_job_id id = submit(job(partition, "echo \"hello from $PARATUNE_TRIAL\"\nsleep 2\n"));
    ASSERT_NE(id, 0u);
    auto s = wait_final(id);
    EXPECT_EQ(s.state, slurm_state::completed);
    EXPECT_EQ(s.exit_code, 0);
    EXPECT_EQ(s.partition, partition);
    EXPECT_FALSE(s.nodes.empty());
    ASSERT_FALSE(seen_.empty());
    EXPECT_TRUE(seen_.front() == slurm_state::pending || seen_.front() == slurm_state::running)
        << to_string(seen_.front());
    EXPECT_NE(std::find(seen_.begin(), seen_.end(), slurm_state::running), seen_.end());
    EXPECT_EQ(output_of(id), std::string("hello from trial on ") + partition + "\n");
  }
}

TEST_P(slurm_live, a_job_that_exits_3_reads_as_failed_with_exit_code_3) {
  slurm_job_id id = submit(job("h100", "exit 3\n"));
  ASSERT_NE(id, 0u);
  auto s = wait_final(id);
  EXPECT_EQ(s.state, slurm_state::failed);
  EXPECT_EQ(s.exit_code, 3);
  EXPECT_EQ(s.reason, "NonZeroExitCode");
}

TEST_P(slurm_live, a_running_job_is_cancelled) {
  slurm_job_id id = submit(job("a100", "sleep 300\n"));
  ASSERT_NE(id, 0u);
  auto running = wait_for(id, [](const slurm_job_status& s) {
    return s.state == slurm_state::running || is_final(s.state);
  });
  ASSERT_EQ(running.state, slurm_state::running);
  auto c = client_->cancel(id);
  ASSERT_TRUE(c) << c.error().message;
  auto s = wait_final(id);
  EXPECT_EQ(s.state, slurm_state::cancelled);
  EXPECT_FALSE(s.exit_code);
}

TEST_P(slurm_live, two_jobs_on_the_two_partitions_run_at_the_same_time) {
  slurm_job_id a = submit(job("a100", "sleep 6\n"));
  slurm_job_id h = submit(job("h100", "sleep 6\n"));
  ASSERT_NE(a, 0u);
  ASSERT_NE(h, 0u);
  bool together = false;
  auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!together && std::chrono::steady_clock::now() < deadline) {
    auto sa = client_->state(a);
    auto sh = client_->state(h);
    ASSERT_TRUE(sa && sh);
    together = sa.value().state == slurm_state::running
               && sh.value().state == slurm_state::running;
    if (is_final(sa.value().state) || is_final(sh.value().state))
      break;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_TRUE(together) << "the a100 and h100 jobs never ran at the same time";
}

TEST_P(slurm_live, an_unknown_partition_is_refused_with_slurms_reason) {
  auto id = client_->submit(job("b200", "true\n"));
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error().kind, slurm_failure::refused) << id.error().message;
  EXPECT_NE(id.error().message.find("Invalid partition name specified"), std::string::npos)
      << id.error().message;
}

TEST_P(slurm_live, an_unknown_job_is_not_found) {
  auto s = client_->state(4000000000u);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, slurm_failure::not_found) << s.error().message;
  auto c = client_->cancel(4000000000u);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().kind, slurm_failure::not_found) << c.error().message;
}

TEST_P(slurm_live, a_hostile_job_name_is_only_a_name) {
  std::string canary = dir_ + "/pwned";
  auto j = job("a100", "true\n");
  j.name = "'; rm -rf ~; touch " + canary + "; echo \"$(touch " + canary + ")";
  slurm_job_id id = submit(j);
  ASSERT_NE(id, 0u);
  auto s = wait_final(id);
  EXPECT_EQ(s.state, slurm_state::completed);
  EXPECT_EQ(s.name, j.name);
  EXPECT_FALSE(fs::exists(canary));
}

TEST_P(slurm_live, environment_values_reach_the_job_verbatim) {
  auto j = job("h100", "printf '%s|' \"$TRIAL_ARGS\" \"$PARATUNE_TRIAL\"\n");
  j.environment.emplace_back("TRIAL_ARGS", "--tp=2,--pp=4; $(id) `id` \"q\"");
  slurm_job_id id = submit(j);
  ASSERT_NE(id, 0u);
  EXPECT_EQ(wait_final(id).state, slurm_state::completed);
  EXPECT_EQ(output_of(id), "--tp=2,--pp=4; $(id) `id` \"q\"|trial on h100|");
}

/// Variables set in this process for one test, unset at its end.
// A job asking for two tasks per node, the node to itself, an account and a
// time limit, whose script starts its tasks with srun as paratune's per-task
// batch scripts do: each client passes every option, and Slurm applies it.
TEST_P(slurm_live, tasks_exclusive_account_and_time_reach_slurm) {
  auto j = job("a100",
               "echo \"account=$SLURM_JOB_ACCOUNT\"\n"
               "echo \"limit=$(squeue -h -j \"$SLURM_JOB_ID\" -o %l)\"\n"
               "scontrol show job \"$SLURM_JOB_ID\" | grep -o 'OverSubscribe=[A-Z]*'\n"
               "srun --nodes=\"$SLURM_JOB_NUM_NODES\" --ntasks-per-node=2 --kill-on-bad-exit=1 "
               "/bin/bash -c 'echo \"task $SLURM_PROCID of $SLURM_NTASKS\"' | sort\n");
  j.tasks_per_node = 2;
  j.exclusive = true;
  j.account = "paratune";
  j.time_limit_minutes = 7;
  slurm_job_id id = submit(j);
  ASSERT_NE(id, 0u);
  auto s = wait_final(id);
  EXPECT_EQ(s.state, slurm_state::completed) << output_of(id);
  EXPECT_EQ(output_of(id), "account=paratune\nlimit=7:00\nOverSubscribe=NO\n"
                           "task 0 of 2\ntask 1 of 2\n");
}

// A GPU count the local cluster has no gres for: sbatch says why itself;
// slurmrestd says only "Failure during parsing", and paratune names the
// fields the cluster must allow.
TEST_P(slurm_live, gpus_the_cluster_does_not_have_are_refused_with_the_field_named) {
  auto j = job("a100", "echo never\n");
  j.gpus_per_node = 8;
  const auto id = client_->submit(j);
  ASSERT_FALSE(id) << "job " << id.value() << " was accepted";
  if (GetParam() == client_kind::cli)
    EXPECT_NE(id.error().message.find("Invalid generic resource (gres) specification"),
              std::string::npos) << id.error().message;
  else
    EXPECT_EQ(id.error().message,
              "Failure during parsing: slurmrestd refused a field of the job and names it only in "
              "its own log (\"error: ...\" beside \"job parsing failed\"); the fields this job "
              "sets that the cluster must allow: gpus_per_node=8 (GPUs are a gres the nodes must "
              "configure)");
}

struct scoped_submitter_env {
  explicit scoped_submitter_env(std::vector<std::pair<std::string, std::string>> vars)
    : vars_(std::move(vars)) {
    for (const auto& [name, value] : vars_)
      setenv(name.c_str(), value.c_str(), 1);
  }
  ~scoped_submitter_env() {
    for (const auto& [name, value] : vars_)
      unsetenv(name.c_str());
  }
  std::vector<std::pair<std::string, std::string>> vars_;
};

// The job's environment is the request's: sbatch (which would copy its own
// environment, every SLURM_* variable included) runs with it alone, and
// slurmrestd has no submitter environment to copy.
TEST_P(slurm_live, the_submitters_environment_never_reaches_the_job) {
  // A real token, so that scontrol (which switches to auth/jwt when
  // SLURM_JWT is set) still authenticates.
  const auto token = slurm_token_from_file(env_or_empty("PARATUNE_SLURM_JWT_FILE"));
  const std::string jwt = token ? token.value() : "eyJ-no-token-file-0000";
  scoped_submitter_env env({{"SLURM_JWT", jwt},
                            {"OPENAI_API_KEY", "sk-submitter-9c41e0"},
                            {"PARATUNE_SUBMITTER_ONLY", "submitter-only-77aa"}});
  slurm_job_id id = submit(job("h100", "env | sort\n"));
  ASSERT_NE(id, 0u);
  EXPECT_EQ(wait_final(id).state, slurm_state::completed);
  const auto out = output_of(id);
  EXPECT_NE(out.find("PARATUNE_TRIAL=trial on h100\n"), std::string::npos) << out;
  EXPECT_NE(out.find("PATH=/usr/bin:/bin\n"), std::string::npos) << out;
  for (const std::string& absent : {std::string("OPENAI_API_KEY"), std::string("sk-submitter-9c41e0"),
                                   std::string("SLURM_JWT="), jwt,
                                   std::string("PARATUNE_SUBMITTER_ONLY")})
    EXPECT_EQ(out.find(absent), std::string::npos) << absent << " in\n" << out;
}

INSTANTIATE_TEST_SUITE_P(clients, slurm_live,
                         ::testing::Values(client_kind::cli, client_kind::rest_unix,
                                           client_kind::rest_jwt),
                         [](const auto& info) { return name_of(info.param); });

// rest_auth/local: slurmrestd on its Unix socket accepts a caller running
// as its own user or as root and refuses anyone else. The ping runs in a
// forked child that drops to the user; its exit code carries the outcome.
int ping_unix_socket_as(const char* user) {
  passwd* pw = getpwnam(user);
  if (!pw)
    return -1;
  uid_t uid = pw->pw_uid;
  gid_t gid = pw->pw_gid;
  pid_t pid = fork();
  if (pid == 0) {
    if (setgid(gid) != 0 || setuid(uid) != 0)
      _exit(100);
    slurmrestd_options o;
    o.address = env_or_empty("PARATUNE_SLURM_REST_SOCKET");
    auto p = slurmrestd_client(o).ping();
    _exit(p ? 0 : 10 + int(p.error().kind));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
}

TEST(slurmrestd_unix_socket, accepts_its_own_user_and_refuses_another) {
  if (env_or_empty("PARATUNE_SLURM_REST_SOCKET").empty())
    GTEST_SKIP() << "no local Slurm (tools/slurm-local env)";
  if (getuid() != 0)
    GTEST_SKIP() << "needs root to act as other users";
  EXPECT_EQ(ping_unix_socket_as(env_or_empty("PARATUNE_SLURM_REST_USER").c_str()), 0);
  EXPECT_EQ(ping_unix_socket_as("nobody"), 10 + int(slurm_failure::unauthorized));
}

// A controller that is not there: no local Slurm needed for the REST side.
TEST(slurm_down, a_rest_client_on_a_dead_socket_or_port_reports_unreachable) {
  slurmrestd_options dead_socket;
  dead_socket.address = "unix:/tmp/paratune-no-such-slurmrestd.sock";
  slurmrestd_client a(dead_socket);
  auto p = a.ping();
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, slurm_failure::unreachable) << p.error().message;
  auto s = a.state(1);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, slurm_failure::unreachable);

  slurmrestd_options dead_port;
  dead_port.address = "http://127.0.0.1:1";
  dead_port.user_name = "slurmrest";
  dead_port.token = "x";
  auto q = slurmrestd_client(dead_port).ping();
  ASSERT_FALSE(q);
  EXPECT_EQ(q.error().kind, slurm_failure::unreachable) << q.error().message;

  slurmrestd_options nonsense;
  nonsense.address = "ftp://example";
  auto n = slurmrestd_client(nonsense).ping();
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error().kind, slurm_failure::invalid_request);
}

TEST(slurm_down, a_cli_client_with_a_bogus_slurm_conf_reports_unreachable_at_once) {
  slurm_cli_options o;
  o.slurm_conf = "/nonexistent/slurm.conf";
  slurm_cli_client c(o);
  auto t0 = std::chrono::steady_clock::now();
  auto p = c.ping();
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, slurm_failure::unreachable) << p.error().message;
  slurm_job_request j;
  j.name = "x";
  j.partition = "a100";
  j.working_directory = "/tmp";
  j.script = "#!/bin/sh\n";
  auto id = c.submit(j);
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error().kind, slurm_failure::unreachable);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
}

TEST(slurm_down, a_cli_client_without_slurm_commands_reports_a_failure) {
  slurm_cli_options o;
  o.bin_dir = "/nonexistent/bin";
  auto s = slurm_cli_client(o).state(1);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, slurm_failure::command_failed) << s.error().message;
}

TEST(slurm_down, a_cli_client_whose_controller_is_not_running_reports_unreachable) {
  std::string conf = env_or_empty("PARATUNE_SLURM_CONF");
  if (conf.empty())
    GTEST_SKIP() << "no local Slurm (tools/slurm-local env) to copy a slurm.conf from";
  // The real configuration, with the controller's port where nothing listens.
  char tmpl[] = "/tmp/paratune-slurm-dead-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dead = std::string(tmpl) + "/slurm.conf";
  {
    std::ifstream in(conf);
    std::ofstream out(dead);
    std::string line;
    while (std::getline(in, line))
      out << (line.rfind("SlurmctldPort=", 0) == 0 ? "SlurmctldPort=1" : line) << "\n";
  }
  slurm_cli_options o;
  o.slurm_conf = dead;
  o.timeout = 30s;  // scontrol retries for about 18 s before it gives up
  slurm_cli_client c(o);
  auto p = c.ping();
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, slurm_failure::unreachable) << p.error().message;
  auto s = c.state(1);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, slurm_failure::unreachable) << s.error().message;
  fs::remove_all(tmpl);
}

} // namespace
} // namespace paratune
