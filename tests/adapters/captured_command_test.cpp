#include "adapters/process/captured_command.hpp"

#include <chrono>
#include <cstdlib>

#include <gtest/gtest.h>

namespace paratune {
namespace {

using ending = captured_command_result::ending;

TEST(captured_command, keeps_stdout_and_stderr_apart_and_reports_the_exit_code) {
  auto r = run_captured({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.how, ending::exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST(captured_command, feeds_stdin_and_arguments_stay_single_argv_entries) {
  captured_command_options o;
  o.stdin_text = "line one\n$(id)\n";
  auto r = run_captured({"cat"}, o);  // found on PATH
  EXPECT_EQ(r.how, ending::exited);
  EXPECT_EQ(r.out, o.stdin_text);
  auto echo = run_captured({"/bin/echo", "'; rm -rf ~", "$(id)"});
  EXPECT_EQ(echo.out, "'; rm -rf ~ $(id)\n");
}

TEST(captured_command, a_command_that_ignores_stdin_does_not_block) {
  captured_command_options o;
  o.stdin_text = std::string(4 << 20, 'x');  // more than a pipe holds
  auto r = run_captured({"/bin/true"}, o);
  EXPECT_EQ(r.how, ending::exited);
  EXPECT_EQ(r.exit_code, 0);
}

TEST(captured_command, sets_and_drops_environment_variables) {
  setenv("SBATCH_PARTITION", "wrong", 1);
  captured_command_options o;
  o.set_env = {{"PARATUNE_X", "a b;c"}};
  o.drop_env_prefixes = {"SBATCH_"};
  auto r = run_captured({"/bin/sh", "-c", "echo \"$PARATUNE_X|${SBATCH_PARTITION-unset}\""}, o);
  unsetenv("SBATCH_PARTITION");
  EXPECT_EQ(r.out, "a b;c|unset\n");
}

TEST(captured_command, without_inheriting_the_environment_is_set_env_alone) {
  setenv("PARATUNE_PARENT_SECRET", "parent-only-1f9e", 1);
  captured_command_options o;
  o.inherit_env = false;
  o.set_env = {{"PATH", "/usr/bin:/bin"}, {"SLURM_CONF", "/etc/slurm/slurm.conf"}};
  const auto r = run_captured({"env"}, o);
  unsetenv("PARATUNE_PARENT_SECRET");
  EXPECT_EQ(r.exit_code, 0) << r.failure;
  EXPECT_EQ(r.out, "PATH=/usr/bin:/bin\nSLURM_CONF=/etc/slurm/slurm.conf\n");
}

TEST(captured_command, kills_a_command_past_its_timeout_with_what_it_started) {
  captured_command_options o;
  o.timeout = std::chrono::milliseconds(300);
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_captured({"/bin/sh", "-c", "sleep 30 & sleep 30"}, o);
  EXPECT_EQ(r.how, ending::timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

TEST(captured_command, a_missing_program_is_reported_not_thrown) {
  auto r = run_captured({"/nonexistent/sbatch", "--parsable"});
  EXPECT_EQ(r.how, ending::not_started);
  EXPECT_NE(r.failure.find("/nonexistent/sbatch"), std::string::npos);
  EXPECT_EQ(run_captured({}).how, ending::not_started);
}

TEST(captured_command, caps_what_it_keeps_of_a_flood) {
  captured_command_options o;
  o.max_output_bytes = 1000;
  auto r = run_captured({"/bin/sh", "-c", "head -c 100000 /dev/zero"}, o);
  EXPECT_EQ(r.how, ending::exited);
  EXPECT_EQ(r.out.size(), 1000u);
}

} // namespace
} // namespace paratune
