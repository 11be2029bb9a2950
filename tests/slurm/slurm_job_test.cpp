// What paratune checks before it sends a job, and the state words.
#include "adapters/slurm/slurm_job.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

slurm_job_request good() {
  slurm_job_request j;
  j.name = "trial-1";
  j.partition = "a100";
  j.working_directory = "/tmp";
  j.output_path = "/tmp/out-%j.log";
  j.environment = {{"PATH", "/usr/bin:/bin"}};
  j.script = "#!/bin/bash\ntrue\n";
  return j;
}

TEST(slurm_request_check, accepts_a_plain_job_and_a_hostile_name) {
  EXPECT_FALSE(check_request(good()));
  auto j = good();
  j.name = "'; rm -rf ~";  // only a name: it never reaches a shell
  EXPECT_FALSE(check_request(j));
}

TEST(slurm_request_check, names_the_bad_field) {
  struct bad_case {
    const char* why;
    void (*spoil)(slurm_job_request&);
  };
  const bad_case cases[] = {
      {"job name", [](slurm_job_request& j) { j.name = ""; }},
      {"job name", [](slurm_job_request& j) { j.name = "a\nb"; }},
      {"job name", [](slurm_job_request& j) { j.name = std::string(201, 'x'); }},
      {"partition", [](slurm_job_request& j) { j.partition = ""; }},
      {"partition", [](slurm_job_request& j) { j.partition = "a100 --uid=0"; }},
      {"partition", [](slurm_job_request& j) { j.partition = "a100,h100"; }},
      {"nodes", [](slurm_job_request& j) { j.nodes = 0; }},
      {"gpus per node", [](slurm_job_request& j) { j.gpus_per_node = -1; }},
      {"time limit", [](slurm_job_request& j) { j.time_limit_minutes = -5; }},
      {"working directory", [](slurm_job_request& j) { j.working_directory = "relative"; }},
      {"working directory", [](slurm_job_request& j) { j.working_directory = "/a\nb"; }},
      {"output path", [](slurm_job_request& j) { j.output_path = "out.log"; }},
      {"not an identifier", [](slurm_job_request& j) { j.environment = {{"A=B", "x"}}; }},
      {"not an identifier", [](slurm_job_request& j) { j.environment = {{"", "x"}}; }},
      {"reserved", [](slurm_job_request& j) { j.environment = {{"SBATCH_PARTITION", "x"}}; }},
      {"reserved", [](slurm_job_request& j) { j.environment = {{"SLURM_CONF", "x"}}; }},
      {"twice", [](slurm_job_request& j) { j.environment = {{"A", "1"}, {"A", "2"}}; }},
      {"NUL", [](slurm_job_request& j) { j.environment = {{"A", std::string("a\0b", 3)}}; }},
      {"#!", [](slurm_job_request& j) { j.script = "echo hi\n"; }},
      {"4 MiB", [](slurm_job_request& j) { j.script = "#!/bin/sh\n" + std::string(5 << 20, '#'); }},
  };
  for (const auto& c : cases) {
    auto j = good();
    c.spoil(j);
    auto e = check_request(j);
    ASSERT_TRUE(e) << c.why;
    EXPECT_EQ(e->kind, slurm_failure::invalid_request) << c.why;
    EXPECT_NE(e->message.find(c.why), std::string::npos) << e->message;
  }
}

TEST(slurm_state_words, parse_every_word_slurm_prints_and_round_trip) {
  EXPECT_EQ(parse_slurm_state("PENDING"), slurm_state::pending);
  EXPECT_EQ(parse_slurm_state("RUNNING"), slurm_state::running);
  EXPECT_EQ(parse_slurm_state("COMPLETING"), slurm_state::completing);
  EXPECT_EQ(parse_slurm_state("COMPLETED"), slurm_state::completed);
  EXPECT_EQ(parse_slurm_state("FAILED"), slurm_state::failed);
  EXPECT_EQ(parse_slurm_state("CANCELLED"), slurm_state::cancelled);
  EXPECT_EQ(parse_slurm_state("CANCELLED+"), slurm_state::cancelled);
  EXPECT_EQ(parse_slurm_state("TIMEOUT"), slurm_state::timeout);
  EXPECT_EQ(parse_slurm_state("NODE_FAIL"), slurm_state::node_fail);
  EXPECT_EQ(parse_slurm_state("BOOT_FAIL"), slurm_state::node_fail);
  EXPECT_EQ(parse_slurm_state("OUT_OF_MEMORY"), slurm_state::out_of_memory);
  EXPECT_EQ(parse_slurm_state("PREEMPTED"), slurm_state::preempted);
  EXPECT_EQ(parse_slurm_state("CONFIGURING"), slurm_state::pending);
  EXPECT_EQ(parse_slurm_state("running"), slurm_state::unknown);  // Slurm writes upper case
  EXPECT_EQ(parse_slurm_state(""), slurm_state::unknown);
  EXPECT_EQ(to_string(slurm_state::node_fail), "node_fail");
  EXPECT_EQ(to_string(slurm_state::out_of_memory), "out_of_memory");
  EXPECT_TRUE(is_final(slurm_state::failed));
  EXPECT_FALSE(is_final(slurm_state::completing));
  EXPECT_FALSE(is_final(slurm_state::unknown));
}

} // namespace
} // namespace paratune
