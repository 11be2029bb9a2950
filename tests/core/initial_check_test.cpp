// The check of a job's initial configuration before a session is stored:
// Megatron-LM's rules in its own words, then the search space.

#include <gtest/gtest.h>

#include "core/initial_check.hpp"

namespace paratune {
namespace {

job_spec llama3_8b_job(int nodes) {
  job_spec job;
  job.name = "initial-check";
  auto& m = job.model;
  m.name = "llama3-8b";
  m.layers = 32; m.hidden = 4096; m.heads = 32; m.kv_heads = 8;
  m.ffn = 14336; m.vocab = 128256; m.swiglu = true;
  m.position = position_embedding::rope; m.bias_linear = false;
  job.cluster.devices_per_node = 8;
  job.nodes = nodes;
  job.initial.tp = 8; job.initial.mbs = 1; job.initial.gbs = 512; job.initial.seq = 8192;
  job.search = {{"tp", {"1", "2", "4", "8"}}, {"mbs", {"1", "2"}}};
  return job;
}

TEST(initial_check, a_valid_initial_inside_the_search_space_passes) {
  EXPECT_EQ(initial_refusal(llama3_8b_job(1)), std::nullopt);
}

TEST(initial_check, tp_3_with_32_heads_gets_megatrons_own_message) {
  auto job = llama3_8b_job(3); // 24 devices: tp 3 divides the world, not the heads
  job.initial.tp = 3;
  EXPECT_EQ(initial_refusal(job),
            "initial breaks Megatron-LM's rules on 24 devices:\n"
            "  [heads_tp] num_attention_heads (32) must be a multiple of "
            "tensor_model_parallel_size (3).\n"
            "  [query_groups_tp] num_query_groups (8) must be a multiple or divisor of "
            "tensor_model_parallel_size (3).");
  // The rules come first even where trial 1 would not run the initial.
  job.start = start_policy::predicted_best;
  EXPECT_NE(initial_refusal(job), std::nullopt);
}

TEST(initial_check, an_initial_outside_the_search_space_is_refused_only_when_trial_1_runs_it) {
  auto job = llama3_8b_job(1);
  job.initial.mbs = 4; // valid for Megatron-LM, but search: mbs: [1, 2]
  EXPECT_EQ(initial_refusal(job),
            "initial: mbs=4 is outside the search space, and trial 1 runs the initial "
            "configuration (start: initial): add the value to search: mbs, or change initial");
  job.start = start_policy::predicted_best;
  EXPECT_EQ(initial_refusal(job), std::nullopt);
}

TEST(initial_check, outside_search_space_names_the_first_key_that_leaves_it) {
  const auto job = llama3_8b_job(1);
  auto c = job.initial;
  EXPECT_EQ(outside_search_space(job.search, job.initial, c), std::nullopt);
  c.tp = 2;
  EXPECT_EQ(outside_search_space(job.search, job.initial, c), std::nullopt);
  c.pp = 2; // not searched: must keep the initial's 1
  EXPECT_EQ(outside_search_space(job.search, job.initial, c), "pp=2");
}

} // namespace
} // namespace paratune
