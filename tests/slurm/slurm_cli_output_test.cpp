// The readers of sbatch, scontrol and scancel output, on answers recorded
// from a real Slurm 22.05 (tests/fixtures/slurm/) and on hostile ones.
#include "adapters/slurm/slurm_cli_output.hpp"

#include <gtest/gtest.h>

#include "tests/slurm/slurm_fixtures.hpp"

namespace paratune {
namespace {

using test::slurm_fixture;

TEST(sbatch_parsable, reads_the_recorded_job_id_and_the_cluster_form) {
  auto id = parse_sbatch_parsable(slurm_fixture("sbatch_parsable.txt"));
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_GT(id.value(), 0u);
  auto with_cluster = parse_sbatch_parsable("42;paratune-local\n");
  ASSERT_TRUE(with_cluster);
  EXPECT_EQ(with_cluster.value(), 42u);
}

TEST(sbatch_parsable, refuses_anything_but_a_job_id) {
  for (const char* out : {"", "\n", "Submitted batch job 5\n", "-3", "0", "12abc",
                          "99999999999", "4294967296", " ; ", "1 2"}) {
    auto id = parse_sbatch_parsable(out);
    ASSERT_FALSE(id) << out;
    EXPECT_EQ(id.error().kind, slurm_failure::malformed) << out;
  }
}

TEST(scontrol_job, reads_a_recorded_pending_job) {
  auto s = parse_scontrol_job(slurm_fixture("scontrol_pending.txt"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().state, slurm_state::pending);
  EXPECT_EQ(s.value().raw_state, "PENDING");
  EXPECT_EQ(s.value().reason, "Priority");
  EXPECT_EQ(s.value().partition, "h100");
  EXPECT_EQ(s.value().name, "sleep.sh");
  EXPECT_TRUE(s.value().nodes.empty());
  EXPECT_FALSE(s.value().exit_code);
}

TEST(scontrol_job, reads_a_recorded_running_job_with_its_node) {
  auto s = parse_scontrol_job(slurm_fixture("scontrol_running.txt"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().state, slurm_state::running);
  EXPECT_EQ(s.value().partition, "h100");
  EXPECT_FALSE(s.value().nodes.empty());
  EXPECT_FALSE(s.value().exit_code);  // not final yet
}

TEST(scontrol_job, reads_completed_failed_and_cancelled_jobs) {
  auto done = parse_scontrol_job(slurm_fixture("scontrol_completed.txt"));
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(done.value().state, slurm_state::completed);
  EXPECT_EQ(done.value().exit_code, 0);

  auto failed = parse_scontrol_job(slurm_fixture("scontrol_failed_exit3.txt"));
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_EQ(failed.value().state, slurm_state::failed);
  EXPECT_EQ(failed.value().exit_code, 3);
  EXPECT_EQ(failed.value().reason, "NonZeroExitCode");
  EXPECT_EQ(failed.value().partition, "a100");

  auto cancelled = parse_scontrol_job(slurm_fixture("scontrol_cancelled.txt"));
  ASSERT_TRUE(cancelled) << cancelled.error().message;
  EXPECT_EQ(cancelled.value().state, slurm_state::cancelled);
  EXPECT_EQ(cancelled.value().signal, 15);  // ExitCode=0:15
  EXPECT_FALSE(cancelled.value().exit_code);
}

TEST(scontrol_job, keeps_a_hostile_job_name_as_text) {
  auto s = parse_scontrol_job(slurm_fixture("scontrol_hostile_name.txt"));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().name, "'; rm -rf ~");
  EXPECT_EQ(s.value().state, slurm_state::completed);
}

TEST(scontrol_job, a_value_imitating_a_key_makes_the_line_malformed) {
  std::string line = slurm_fixture("scontrol_completed.txt");
  // A job name "x JobState=RUNNING" would otherwise read as a state.
  auto at = line.find("JobName=") + 8;
  std::string forged = line.substr(0, at) + "x JobState=RUNNING ExitCode=0:0 "
                       + line.substr(line.find(' ', at) + 1);
  auto s = parse_scontrol_job(forged);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, slurm_failure::malformed);
  EXPECT_NE(s.error().message.find("twice"), std::string::npos);
}

TEST(scontrol_job, values_with_spaces_and_lower_case_equals_stay_in_their_field) {
  auto s = parse_scontrol_job(
      "JobId=7 JobName=tp=2 pp=4 lr=3e-4 UserId=root(0) JobState=RUNNING "
      "Reason=(ReqNodeNotAvail, UnavailableNodes:vm) ExitCode=0:0 Partition=a100 NodeList=vm");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().name, "tp=2 pp=4 lr=3e-4");
  EXPECT_EQ(s.value().reason, "(ReqNodeNotAvail, UnavailableNodes:vm)");
  EXPECT_EQ(s.value().nodes, "vm");
}

TEST(scontrol_job, refuses_malformed_lines) {
  for (const char* line :
       {"", "garbage", "JobName=x JobState=RUNNING", "JobId=1", "JobId=abc JobState=RUNNING",
        "JobId=0 JobState=RUNNING", "JobId=99999999999 JobState=RUNNING",
        "JobId=1 JobState=FAILED ExitCode=x:y", "JobId=1 JobState=FAILED ExitCode=300:0",
        "JobId=1 JobState=FAILED ExitCode=-1:0", "JobId=1 JobState=RUNNING\nJobId=2 JobState=RUNNING",
        "JobId=1 JobId=2 JobState=RUNNING", "\x01\x02\xff JobId=1"}) {
    auto s = parse_scontrol_job(line);
    ASSERT_FALSE(s) << line;
    EXPECT_EQ(s.error().kind, slurm_failure::malformed) << line;
  }
}

TEST(scontrol_job, an_unknown_state_word_reads_as_unknown_not_as_an_error) {
  auto s = parse_scontrol_job("JobId=5 JobState=WIBBLE ExitCode=0:0");
  ASSERT_TRUE(s);
  EXPECT_EQ(s.value().state, slurm_state::unknown);
  EXPECT_EQ(s.value().raw_state, "WIBBLE");
}

TEST(scontrol_line_ambiguity, flags_values_that_would_imitate_a_key) {
  EXPECT_TRUE(ambiguous_in_scontrol_line("x JobState=COMPLETED"));
  EXPECT_TRUE(ambiguous_in_scontrol_line("/tmp/a StdOut=/etc/passwd"));
  EXPECT_FALSE(ambiguous_in_scontrol_line("'; rm -rf ~"));
  EXPECT_FALSE(ambiguous_in_scontrol_line("tp=2 pp=4"));
  EXPECT_FALSE(ambiguous_in_scontrol_line("JobState=x"));  // no space before: stays in JobName
}

TEST(scontrol_ping, reads_up_and_down) {
  auto up = parse_scontrol_ping(slurm_fixture("scontrol_ping_up.txt"));
  ASSERT_TRUE(up) << up.error().message;
  EXPECT_TRUE(up.value().up);
  EXPECT_FALSE(up.value().controller.empty());
  auto down = parse_scontrol_ping(slurm_fixture("scontrol_ping_down.txt"));
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error().kind, slurm_failure::unreachable);
  for (const char* out : {"", "pong", "Slurmctld(primary) at vm is SIDEWAYS"})
    EXPECT_EQ(parse_scontrol_ping(out).error().kind, slurm_failure::malformed) << out;
}

TEST(cli_failure, tells_down_refused_and_unknown_apart_on_recorded_stderr) {
  auto refused = classify_cli_failure("sbatch", 1, slurm_fixture("sbatch_invalid_partition.stderr"));
  EXPECT_EQ(refused.kind, slurm_failure::refused);
  EXPECT_EQ(refused.message, "Invalid partition name specified");

  auto down = classify_cli_failure("sbatch", 1, slurm_fixture("sbatch_controller_down.stderr"));
  EXPECT_EQ(down.kind, slurm_failure::unreachable);  // not "refused", though it says "failed:"
  auto down2 = classify_cli_failure("scontrol", 1, slurm_fixture("scontrol_controller_down.stderr"));
  EXPECT_EQ(down2.kind, slurm_failure::unreachable);

  auto unknown = classify_cli_failure("scontrol", 1, slurm_fixture("scontrol_unknown_job.stderr"));
  EXPECT_EQ(unknown.kind, slurm_failure::not_found);

  // No configuration found (SLURM_CONF unset): the host cannot find its
  // controller, and every line of Slurm's reason reaches the user whole.
  auto no_config = classify_cli_failure("sbatch", 1, slurm_fixture("sbatch_no_config.stderr"));
  EXPECT_EQ(no_config.kind, slurm_failure::unreachable);
  EXPECT_EQ(no_config.message,
            "sbatch (exit 1): sbatch: error: resolve_ctls_from_dns_srv: res_nsearch error: "
            "Unknown host; sbatch: error: fetch_config: DNS SRV lookup failed; sbatch: error: "
            "_establish_config_source: failed to fetch config; sbatch: fatal: Could not "
            "establish a configuration source");

  // A message past the bound is cut after a whole line, and says so.
  std::string chatter;
  for (int i = 0; i < 12; ++i)
    chatter += "sbatch: error: line " + std::to_string(i) + " of a long and chatty message\n";
  const auto cut = classify_cli_failure("sbatch", 1, chatter).message;
  EXPECT_EQ(cut.rfind("sbatch (exit 1): sbatch: error: line 0 of a long and chatty message; ", 0),
            0u) << cut;
  EXPECT_NE(cut.find("line 6 of a long and chatty message [262 more bytes cut]"),
            std::string::npos) << cut;

  auto other = classify_cli_failure("sbatch", 2, std::string("\x01\xfe odd\n", 7));
  EXPECT_EQ(other.kind, slurm_failure::command_failed);
  EXPECT_EQ(classify_cli_failure("sbatch", 1, "").kind, slurm_failure::command_failed);
}

} // namespace
} // namespace paratune
