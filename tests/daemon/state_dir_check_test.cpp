// A state directory, or `tune --db`'s pool directory, that others may write
// to is refused at start with its path and mode; one others may only read
// is set to 0700 with a warning that names it (issue 44).

#include <filesystem>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_service_fixture.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;
using state_dir_check = test::daemon_service;

unsigned permission_bits(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

/// A directory made beforehand with `mode`, whatever the umask.
std::string made_with_mode(const std::string& path, unsigned mode) {
  fs::create_directories(path);
  EXPECT_EQ(::chmod(path.c_str(), mode), 0);
  EXPECT_EQ(permission_bits(path), mode);
  return path;
}

TEST_F(state_dir_check, a_world_writable_state_dir_is_refused_with_its_path_and_mode) {
  const auto state = made_with_mode(dir + "/state", 0777);
  const auto r = cli({"daemon", "--state", state, "--http", "off", "--relay-ingress",
                      "tcp://127.0.0.1:*"});
  EXPECT_EQ(r.status, 1);
  const auto said = r.out + r.err;
  EXPECT_NE(said.find("daemon: cannot start: bad input: state: " + state + " has mode 0777: "
                      "other users may write to it"),
            std::string::npos) << said;
  EXPECT_FALSE(fs::exists(state + "/pool")) << "nothing is made in a refused directory";
  EXPECT_FALSE(fs::exists(state + "/relay.key"));
  EXPECT_EQ(permission_bits(state), 0777u) << "a refused directory is left as it was";
}

TEST_F(state_dir_check, a_group_writable_state_dir_is_refused_too) {
  const auto state = made_with_mode(dir + "/state", 0770);
  const auto r = cli({"daemon", "--state", state, "--http", "off", "--relay-ingress",
                      "tcp://127.0.0.1:*"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE((r.out + r.err).find("state: " + state + " has mode 0770"), std::string::npos)
    << r.out << r.err;
}

TEST_F(state_dir_check, a_state_dir_others_may_read_is_set_to_0700_with_a_warning) {
  const auto state = made_with_mode(dir + "/state", 0755);
  test::daemon_process d{state};
  ASSERT_TRUE(d.up()) << d.output();
  EXPECT_EQ(permission_bits(state), 0700u);
  EXPECT_NE(d.output().find("daemon: state: " + state + " had mode 0755: other users could "
                            "list it; set to 0700"),
            std::string::npos) << d.output();
}

TEST_F(state_dir_check, a_new_state_dir_is_made_0700_without_a_warning) {
  const auto state = dir + "/new/state";
  test::daemon_process d{state};
  ASSERT_TRUE(d.up()) << d.output();
  EXPECT_EQ(permission_bits(state), 0700u);
  EXPECT_EQ(d.output().find("had mode"), std::string::npos) << d.output();
}

TEST_F(state_dir_check, tune_refuses_a_world_writable_pool_dir_before_writing_to_it) {
  const auto pool = made_with_mode(dir + "/pool", 0777);
  const auto job = test::write_file(dir, "job.yaml", test::job_text(1, 0.0005));
  const auto r = cli({"tune", job, "--db", pool});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "error: --db: " + pool + " has mode 0777: other users may write to it, and "
                   "so replace the sockets or the pool's files in it (chmod 700 it)\n");
  EXPECT_TRUE(fs::is_empty(pool)) << "nothing is written to a refused pool directory";
}

TEST_F(state_dir_check, tune_sets_a_pool_dir_others_may_read_to_0700_with_a_warning) {
  const auto pool = made_with_mode(dir + "/pool", 0755);
  const auto job = test::write_file(dir, "job.yaml", test::job_text(1, 0.0005));
  const auto r = cli({"tune", job, "--db", pool, "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning: --db: " + pool + " had mode 0755: other users could list it; "
                       "set to 0700\n"),
            std::string::npos) << r.err;
  EXPECT_EQ(permission_bits(pool), 0700u);
  EXPECT_TRUE(fs::exists(pool + "/CURRENT")) << "the session ran into the pool";
}

} // namespace
} // namespace paratune
