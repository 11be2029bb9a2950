// GPU proposals: Megatron-LM configurations predicted with core/perf,
// tied to the collective the log measured.

#include <gtest/gtest.h>

#include "adapters/config/catalog.hpp"
#include "core/diagnosis/proposal_engine.hpp"
#include "tests/diagnose/diagnose_support.hpp"

namespace paratune {
namespace {

experiment_spec gpt7b_on_two_a100_nodes(const std::string& config) {
  test::use_source_configs();
  experiment_spec e;
  e.platform = device_platform::gpu;
  e.model = load_model("gpt3-7b");
  e.cluster = load_cluster("dgx-a100-80g");
  e.nodes = 2;
  e.prec = precision::bf16;
  e.megatron = parse_config(config + ",gbs=64,seq=2048");
  return e;
}

proposal_set propose_for(const experiment_spec& e, const diagnosis_report& r) {
  proposal_context ctx;
  ctx.experiment = &e;
  ctx.report = &r;
  ctx.measured_step_ms = 2000;
  return propose(ctx);
}

TEST(gpu_proposals, the_embedding_all_reduce_between_stages_asks_for_one_stage) {
  const auto e = gpt7b_on_two_a100_nodes("tp=4,pp=4,mbs=1,recompute=full");
  diagnosis_report r;
  r.platform = device_platform::gpu;
  r.bottleneck = bottleneck_class::communication;
  r.confidence = 0.9;
  r.collective_ms = {{"backward-embedding-all-reduce", 416}, {"backward-params-all-reduce", 43}};
  const auto set = propose_for(e, r);
  ASSERT_EQ(set.proposals.size(), 3u);
  const auto& top = set.proposals.front();
  ASSERT_TRUE(top.config);
  EXPECT_EQ(top.config->pp, 1);
  EXPECT_TRUE(top.targeted);
  EXPECT_NE(top.rationale.find("backward-embedding-all-reduce (416 ms"), std::string::npos)
      << top.rationale;
  EXPECT_GT(top.predicted.speedup, 1.0);
}

TEST(gpu_proposals, data_parallel_collectives_ask_for_overlap_or_a_sharded_optimizer) {
  const auto e = gpt7b_on_two_a100_nodes("tp=2,pp=1,mbs=1,recompute=selective");
  diagnosis_report r;
  r.platform = device_platform::gpu;
  r.bottleneck = bottleneck_class::communication;
  r.confidence = 0.9;
  r.collective_ms = {{"grads-all-reduce", 300}};
  const auto set = propose_for(e, r);
  ASSERT_FALSE(set.proposals.empty());
  const auto& c = *set.proposals.front().config;
  EXPECT_TRUE(c.overlap_grad || c.overlap_param || c.dist_opt) << canonical_key(c);
  EXPECT_TRUE(set.proposals.front().targeted);
}

TEST(gpu_proposals, out_of_memory_proposals_fit_and_are_not_called_slower) {
  const auto e = gpt7b_on_two_a100_nodes("tp=2,pp=1,mbs=8,recompute=none");
  diagnosis_report r;
  r.platform = device_platform::gpu;
  r.bottleneck = bottleneck_class::memory_capacity;
  r.confidence = 0.95;
  const auto set = propose_for(e, r);
  ASSERT_EQ(set.proposals.size(), 3u);
  for (const auto& p : set.proposals) {
    EXPECT_LE(p.predicted.memory_gib_after, p.predicted.memory_limit_gib);
    EXPECT_TRUE(p.targeted);
    EXPECT_GE(p.confidence, 0.5);  // no "slower than a run that cannot start" penalty
  }
  bool noted = false;
  for (const auto& n : set.notes)
    noted = noted || n.find("does not fit in memory") != std::string::npos;
  EXPECT_TRUE(noted);
}

} // namespace
} // namespace paratune
