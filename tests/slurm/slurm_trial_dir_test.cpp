// A Slurm trial's directory as the job's user needs it, and whom a pool's
// jobs run as on tools/slurm-local (measured there: slurmrestd on its Unix
// socket, rest_auth/local, runs every job as its own user `slurmrest`; the
// job's output file is created 0644 by that user). The live ones take the
// live tests' lock, as slurm_live does.
#include "adapters/slurm/slurm_job_user.hpp"
#include "adapters/slurm/slurm_job_watch.hpp"
#include "adapters/slurm/slurm_trial_dir.hpp"
#include "adapters/slurm/slurmrestd_client.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <mutex>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace paratune {
namespace {

namespace fs = std::filesystem;

std::string env_of(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

struct stat_of_path {
  unsigned uid = 0;
  unsigned mode = 0;
};
stat_of_path stat_path(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return {st.st_uid, unsigned(st.st_mode & 07777)};
}

std::string temp_dir(unsigned mode) {
  char tmpl[] = "/tmp/paratune-trial-dir-XXXXXX";
  EXPECT_NE(mkdtemp(tmpl), nullptr);
  chmod(tmpl, mode);
  return tmpl;
}

TEST(slurm_trial_dir, root_gives_the_trial_directory_to_the_jobs_user_alone) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to give a directory to another user";
  const passwd* nobody = getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  const unix_user job{"nobody", nobody->pw_uid, nobody->pw_gid, {}};
  const auto dir = temp_dir(0755);
  make_slurm_trial_dir(dir + "/s1/3", job);
  EXPECT_EQ(stat_path(dir + "/s1/3").uid, nobody->pw_uid);
  EXPECT_EQ(stat_path(dir + "/s1/3").mode, 0700u);
  EXPECT_EQ(stat_path(dir + "/s1").uid, 0u);
  EXPECT_EQ(stat_path(dir + "/s1").mode, 0711u); // passable, not listable
  fs::remove_all(dir);
}

TEST(slurm_trial_dir, a_parent_the_jobs_user_cannot_enter_is_named_before_any_job_is_sent) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to act for another user";
  const passwd* nobody = getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  const auto dir = temp_dir(0700); // a daemon's state directory
  try {
    make_slurm_trial_dir(dir + "/trials/s1/1", {"nobody", nobody->pw_uid, nobody->pw_gid, {}});
    ADD_FAILURE() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "the pool's jobs run as user 'nobody', who cannot enter " + dir
                + " (mode 0700, owner root) to write trial directory " + dir
                + "/trials/s1/1: give the pool a `workdir:`, a directory 'nobody' can reach "
                  "on the file system the compute nodes share");
  }
  EXPECT_FALSE(fs::exists(dir + "/trials/s1/1"));
  fs::remove_all(dir);
}

TEST(slurm_trial_dir, a_job_of_paratunes_own_user_keeps_the_directory_to_itself) {
  const auto dir = temp_dir(0755);
  const passwd* me = getpwuid(geteuid());
  ASSERT_NE(me, nullptr);
  make_slurm_trial_dir(dir + "/s1/1", {me->pw_name, me->pw_uid, me->pw_gid, {}});
  EXPECT_EQ(stat_path(dir + "/s1/1").uid, geteuid());
  EXPECT_EQ(stat_path(dir + "/s1/1").mode, 0700u);
  fs::remove_all(dir);
}

/// Holds the live tests' lock (slurm_live's) while alive.
struct live_lock {
  int fd = -1;
  live_lock() {
    fd = open((env_of("PARATUNE_SLURM_STATE") + "/live-tests.lock").c_str(),
              O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
      flock(fd, LOCK_EX);
  }
  ~live_lock() {
    if (fd >= 0)
      close(fd);
  }
};

TEST(slurm_job_user_live, sbatch_jobs_are_ours_and_a_unix_socket_slurmrestd_submits_as_itself) {
  const auto me = slurm_job_user({false, "", ""});
  ASSERT_TRUE(me) << me.error().message;
  EXPECT_EQ(me.value().uid, geteuid());
  const auto socket = env_of("PARATUNE_SLURM_REST_SOCKET");
  if (socket.empty())
    GTEST_SKIP() << "no local Slurm (tools/slurm-local env)";
  const auto rest = slurm_job_user({true, socket, ""});
  ASSERT_TRUE(rest) << rest.error().message;
  EXPECT_EQ(rest.value().name, env_of("PARATUNE_SLURM_REST_USER"));  // slurmrest
  const auto named = slurm_job_user({true, env_of("PARATUNE_SLURM_REST_URL"), "slurmrest"});
  ASSERT_TRUE(named) << named.error().message;
  EXPECT_EQ(named.value().uid, rest.value().uid);
  const auto unknown = slurm_job_user({true, "http://127.0.0.1:6820", "no-such-user-xq"});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message,
            "the pool's user 'no-such-user-xq', whom its jobs run as, is not a user of this "
            "machine: the trial directories cannot be given to it");
}

// What paratune did before it gave trial directories away: slurmrestd's
// job (user slurmrest) cannot open its output file in root's 0755
// directory, Slurm says JobLaunchFailure and a fake signal 53 ("exit
// status 181"). The watch says what happened instead, as a scheduler
// error.
TEST(slurm_job_watch_live, a_job_whose_output_file_cannot_be_made_ends_125_saying_so) {
  const auto socket = env_of("PARATUNE_SLURM_REST_SOCKET");
  if (socket.empty())
    GTEST_SKIP() << "no local Slurm (tools/slurm-local env)";
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root: slurmrest must not own the directory";
  live_lock lock;
  const auto dir = temp_dir(0755);
  slurm_job_request j;
  j.name = "paratune-test-no-output";
  j.partition = "a100";
  j.time_limit_minutes = 5;
  j.working_directory = "/tmp";
  j.output_path = dir + "/slurm-%j.out";
  j.environment = {{"PATH", "/usr/bin:/bin"}};
  j.script = "#!/bin/bash\necho never\n";
  slurmrestd_options o;
  o.address = socket;
  std::mutex m;
  std::vector<std::string> lines;
  std::promise<int> ended;
  slurm_job_watch watch(
    std::make_unique<slurmrestd_client>(o), j,
    [&](const std::string& line) {
      std::lock_guard g(m);
      lines.push_back(line);
    },
    [&](int status) { ended.set_value(status); }, std::chrono::milliseconds(200));
  auto f = ended.get_future();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_EQ(f.get(), 125);
  std::lock_guard g(m);
  ASSERT_FALSE(lines.empty());
  const auto& last = lines.back();
  EXPECT_NE(last.find(" ended FAILED (JobLaunchFailure) and its output file " + dir + "/slurm-"),
            std::string::npos) << last;
  EXPECT_NE(last.find(".out never appeared here: the job's user could not create it there, or "
                      "the directory is not on a file system this machine shares"),
            std::string::npos) << last;
  fs::remove_all(dir);
}

} // namespace
} // namespace paratune
