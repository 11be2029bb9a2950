// tools/slurm-local env, as README.md and docs/jobs.md have a new user run it: its output
// alone, in a shell with nothing else set, lets the Slurm clients reach the
// local Slurm (sinfo once stopped with "DNS SRV lookup failed": SLURM_CONF
// was not among the variables). Skipped when no local Slurm runs.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

std::string slurm_local_state() {
  const char* s = std::getenv("PARATUNE_SLURM_STATE");
  return s && *s ? s : "/tmp/paratune-slurm";
}

TEST(slurm_local_env, its_output_alone_lets_sinfo_reach_the_local_slurm_in_a_new_shell) {
  const auto tool = test::source_dir() + "/tools/slurm-local";
  const auto state = slurm_local_state();
  const auto env = test::run_program({tool, "env", state});
  if (env.status != 0)
    GTEST_SKIP() << "no local Slurm in " << state << " (tools/slurm-local start): " << env.err;
  EXPECT_NE(env.out.find("export SLURM_CONF=" + state + "/slurm.conf\n"), std::string::npos)
    << env.out;
  // `env -i`: none of this process's variables (a SLURM_CONF of the test
  // run's own included) reaches the shell; only what the eval sets.
  const auto r = test::run_program(
    {"/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "/bin/bash", "-c",
     "eval \"$(\"$0\" env \"$1\")\" && sinfo -h -o '%P %a'", tool, state});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "a100* up\nh100 up\n") << r.err;
  EXPECT_EQ(r.err, "");
}

} // namespace
} // namespace paratune
