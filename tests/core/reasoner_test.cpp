#include "core/tuning/reasoner.hpp"
#include "core/tuning/safety_guards.hpp"
#include "validation/reference_specs.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

/// GPT3-7B as OptiCo ran it: 32 layers, h 4096, 32 heads, GPT-2 vocabulary.
model_spec gpt3_7b() { return reference::gpt(32, 4096, 32, 50257); }

/// The appendix D situation: GPT3-7B on 16 A100s, fp16, GBS 1024, seq 4096.
training_config base_config();

tuning_context appendix_d_context() {
  tuning_context ctx;
  ctx.initial = base_config();
  ctx.model = gpt3_7b();
  ctx.cluster = reference::dgx_a100();
  ctx.world_size = 16;
  ctx.prec = precision::fp16;
  ctx.search = {{"mbs", {"1", "2", "4", "8"}}, {"tp", {"1", "2", "4", "8"}},
                {"pp", {"1", "2", "4", "8"}}, {"recompute", {"none", "selective", "full"}},
                {"recompute_layers", {"0", "1", "2"}},
                {"overlap_grad", {"false", "true"}}, {"overlap_param", {"false", "true"}},
                {"fused_ce", {"false", "true"}}};
  return ctx;
}

training_config base_config() {
  return parse_config("tp=1,pp=1,mbs=2,gbs=1024,seq=4096,dist_opt=true,overlap_grad=true,"
                      "overlap_param=true,fused_ce=true");
}

trial_outcome oom(training_config c) {
  trial_outcome r;
  r.config = c;
  r.status = trial_status::failed;
  r.failure = failure_kind::oom;
  r.blamed = {"mbs"};
  r.memory_limit_mib = 81920;
  r.reason = "MICRO_BATCH_SIZE caused CUDA OutOfMemoryError (Confidence: 92)";
  return r;
}

trial_outcome ran(training_config c, double mfu, double mem_mib, double gpu) {
  trial_outcome r;
  r.config = c;
  r.mfu = mfu;
  r.tflops_per_gpu = mfu * 312;
  r.peak_memory_mib = mem_mib;
  r.memory_limit_mib = 81920;
  r.gpu_util_pct = gpu;
  return r;
}

std::vector<trial_outcome> appendix_d_history() {
  std::vector<trial_outcome> h;
  auto c = base_config();
  auto with = [&](const char* text) { return parse_config(text, c); };
  h.push_back(oom(with("mbs=8,recompute=selective")));
  h.push_back(oom(with("mbs=4,recompute=selective")));
  h.push_back(ran(with("mbs=1,recompute=full"), 0.40, 30000, 70));
  h.push_back(oom(with("mbs=4,recompute=none")));
  // The current run, last row: MFU 0.44, 73% busy, 44402 MiB (54%).
  h.push_back(ran(with("mbs=2,recompute=full,recompute_layers=2"), 0.440064, 44402, 73.4184));
  return h;
}

TEST(reasoner, appendix_d_turns_recomputation_off_and_never_proposes_micro_batch_4) {
  auto ctx = appendix_d_context();
  auto history = appendix_d_history();
  auto a = analyze(ctx, history);
  EXPECT_EQ(a.health.state, health_state::performance_tune);
  EXPECT_EQ(a.base_trial, 4); // the current run, the last row
  ASSERT_TRUE(a.selected);
  EXPECT_EQ(a.selected->config.recompute, recompute_mode::none) << a.reasoning;
  EXPECT_NE(a.selected->text.find("AC from full to none"), std::string::npos)
    << a.selected->text;
  for (const auto& s : a.ranked) {
    EXPECT_FALSE(s.config.mbs >= 4 && s.config.tp == 1 && s.config.pp == 1)
      << "proposed a known failure: " << s.text;
    for (const auto& h : history)
      EXPECT_FALSE(s.config == h.config) << "duplicate: " << s.text;
  }
  EXPECT_NE(a.reasoning.find("PERFORMANCE_TUNE"), std::string::npos);
}

TEST(reasoner, health_states_follow_optico_thresholds) {
  auto c = base_config();
  EXPECT_EQ(diagnose_health(ran(c, 0.2, 20000, 40)).state, health_state::severely_underutilized);
  c.pp = 4;
  EXPECT_EQ(diagnose_health(ran(c, 0.45, 60000, 70)).state, health_state::high_pp_overhead);
  c.pp = 1;
  EXPECT_EQ(diagnose_health(ran(c, 0.55, 79000, 90)).state, health_state::memory_bound);
  EXPECT_EQ(diagnose_health(ran(c, 0.55, 50000, 90)).state, health_state::performance_tune);
  // Unknown GPU utilization (0) is not an idle GPU.
  EXPECT_EQ(diagnose_health(ran(c, 0.55, 30000, 0)).state, health_state::performance_tune);
  EXPECT_STREQ(directive_of(health_state::high_pp_overhead), "REDUCE_PIPELINE_DEPTH");
}

TEST(reasoner, pipeline_overhead_directive_reduces_pipeline_depth_first) {
  auto ctx = appendix_d_context();
  auto c = parse_config("pp=4,tp=2,mbs=1,recompute=full", base_config());
  ctx.initial = c;
  auto a = analyze(ctx, {ran(c, 0.35, 30000, 65)});
  EXPECT_EQ(a.health.state, health_state::high_pp_overhead);
  ASSERT_TRUE(a.selected);
  EXPECT_EQ(a.selected->group, candidate_group::directive);
  EXPECT_EQ(a.selected->config.pp, 2);
  EXPECT_EQ(a.selected->config.tp, 2);
}

TEST(reasoner, empty_history_runs_the_initial_configuration) {
  auto ctx = appendix_d_context();
  auto c = parse_config("tp=2,mbs=1,recompute=full", base_config());
  ctx.initial = c;
  auto a = analyze(ctx, {});
  ASSERT_TRUE(a.selected);
  EXPECT_EQ(a.selected->group, candidate_group::initial);
  EXPECT_EQ(a.selected->config, c);
}

TEST(reasoner, start_predicted_best_runs_the_models_best_candidate_first) {
  auto ctx = appendix_d_context();
  ctx.initial = parse_config("tp=8,pp=2,mbs=1,recompute=full", base_config());
  ctx.start = start_policy::predicted_best;
  auto a = analyze(ctx, {});
  ASSERT_TRUE(a.selected) << a.reasoning;
  EXPECT_EQ(a.selected->group, candidate_group::model);
  EXPECT_NE(a.selected->config, ctx.initial);
  for (const auto& s : a.ranked) {
    EXPECT_NE(s.group, candidate_group::initial);
    EXPECT_LE(s.score, a.selected->score);
  }
  EXPECT_NE(a.reasoning.find("start: predicted_best"), std::string::npos) << a.reasoning;
  // The default runs the team's configuration first.
  ctx.start = start_policy::initial;
  EXPECT_EQ(analyze(ctx, {}).selected->group, candidate_group::initial);
}

TEST(reasoner, a_configuration_refused_before_launch_is_not_read_as_a_failure) {
  auto ctx = appendix_d_context();
  ctx.initial = parse_config("tp=2,mbs=1,recompute=full", base_config());
  trial_outcome refused;
  refused.config = ctx.initial;
  refused.status = trial_status::skipped;
  const auto a = analyze(ctx, {refused});
  // Nothing ran out of memory: no memory relief, the model's best instead.
  EXPECT_EQ(a.health.state, health_state::performance_tune) << a.reasoning;
  ASSERT_TRUE(a.selected);
  EXPECT_EQ(a.selected->group, candidate_group::model);
  EXPECT_NE(a.selected->config, ctx.initial);
}

TEST(reasoner, never_proposes_a_configuration_that_is_running_now) {
  auto ctx = appendix_d_context();
  auto c = parse_config("tp=2,mbs=1,recompute=full", base_config());
  ctx.initial = c;
  // Trial 1 (the initial configuration) is running: the first free slot
  // gets something else, and the initial run is not proposed again.
  const auto first = analyze(ctx, {});
  ASSERT_TRUE(first.selected);
  const auto a = analyze(ctx, {}, {{1, c}});
  ASSERT_TRUE(a.selected) << a.reasoning;
  EXPECT_NE(a.selected->group, candidate_group::initial);
  EXPECT_NE(fingerprint(a.selected->config), fingerprint(c));
  // Whatever was ranked first, once running as trial 7, is refused by name.
  const auto next = analyze(ctx, {}, {{1, c}, {7, a.selected->config}});
  for (const auto& s : next.ranked)
    EXPECT_NE(fingerprint(s.config), fingerprint(a.selected->config));
  safety_guards guards(ctx, {}, [&](const training_config&) -> const perf_prediction& {
    static perf_prediction p;
    return p;
  }, {{7, a.selected->config}});
  EXPECT_EQ(guards.duplicate(a.selected->config), "already running as trial 7");
}

TEST(reasoner, stops_when_nothing_new_and_valid_remains) {
  auto ctx = appendix_d_context();
  ctx.search = {{"mbs", {"1", "2"}}};
  auto c = parse_config("mbs=1,recompute=full", base_config());
  auto history = std::vector<trial_outcome>{ran(c, 0.4, 30000, 70),
                                            ran(parse_config("mbs=2", c), 0.42, 40000, 72)};
  ctx.initial = c;
  auto a = analyze(ctx, history);
  EXPECT_FALSE(a.selected) << a.reasoning;
  EXPECT_TRUE(a.exhausted);
  EXPECT_NE(a.reasoning.find("nothing new and valid remains"), std::string::npos);
}

/// What two analyses decided, candidate by candidate.
std::vector<std::string> ranking_of(const analysis& a) {
  std::vector<std::string> out;
  for (const auto& s : a.ranked)
    out.push_back(canonical_key(s.config) + " " + std::to_string(s.score) + " " + s.why);
  for (const auto& s : a.rejected)
    out.push_back(canonical_key(s.config) + " rejected: " + s.rejected.value_or(""));
  return out;
}

TEST(reasoner, a_kept_runnable_space_changes_no_analysis) {
  // A session of eight steps, each running what the last analysis chose:
  // the analysis with the space kept from the steps before is the
  // analysis without it, candidate by candidate.
  auto ctx = appendix_d_context();
  std::vector<trial_outcome> history;
  runnable_space space;
  for (int step = 0; step < 8; ++step) {
    const auto fresh = analyze(ctx, history);
    const auto kept = analyze(ctx, history, {}, &space);
    ASSERT_TRUE(space.walked);
    EXPECT_EQ(ranking_of(kept), ranking_of(fresh)) << "step " << step;
    ASSERT_TRUE(fresh.selected);
    ASSERT_TRUE(kept.selected);
    EXPECT_EQ(kept.selected->config, fresh.selected->config);
    const auto& c = fresh.selected->config;
    // A made-up cluster: faster with less recomputation and larger micro batches.
    history.push_back(ran(c, 0.30 + 0.02 * c.mbs + (c.recompute == recompute_mode::none) * 0.1,
                          20000 + 9000.0 * c.mbs, 70));
  }
  EXPECT_FALSE(space.configs.empty());
  // A base that differs outside the search (the global batch) walks again.
  const auto walked_from = space.from;
  auto other = history;
  other.back().config.gbs = 512;
  other.back().tflops_per_gpu = 1000; // the best run, so the base
  const auto fresh = analyze(ctx, other);
  EXPECT_FALSE(space.fits(ctx, other.back().config));
  const auto kept = analyze(ctx, other, {}, &space);
  EXPECT_EQ(ranking_of(kept), ranking_of(fresh));
  EXPECT_NE(space.from, walked_from);
  EXPECT_EQ(space.from.gbs, 512);
}

TEST(safety_guards, known_oom_covers_configurations_needing_more_memory) {
  auto failed = parse_config("mbs=4,recompute=selective", base_config());
  EXPECT_TRUE(needs_at_least_as_much_memory(parse_config("mbs=8", failed), failed));
  EXPECT_TRUE(needs_at_least_as_much_memory(parse_config("recompute=none", failed), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(parse_config("recompute=full", failed), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(parse_config("mbs=2", failed), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(parse_config("tp=2", failed), failed));
}

TEST(safety_guards, a_transient_failure_may_be_retried_once_when_allowed) {
  auto ctx = appendix_d_context();
  ctx.retry_transient = true;
  auto c = base_config();
  trial_outcome timeout;
  timeout.config = c;
  timeout.status = trial_status::failed;
  timeout.failure = failure_kind::nccl_timeout;
  std::vector<trial_outcome> h{timeout};
  auto predictor = [&ctx](const training_config& c) -> const perf_prediction& {
    static perf_prediction p;
    p = predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec);
    return p;
  };
  safety_guards g(ctx, h, predictor);
  EXPECT_FALSE(g.duplicate(c));
  h.push_back(timeout);
  safety_guards g2(ctx, h, predictor);
  EXPECT_TRUE(g2.duplicate(c));
  ctx.retry_transient = false; // the default: never repeat a configuration
  std::vector<trial_outcome> once{timeout};
  safety_guards g3(ctx, once, predictor);
  EXPECT_TRUE(g3.duplicate(c));
}

TEST(safety_guards, constraint_names_the_rule_or_the_search_space) {
  auto ctx = appendix_d_context();
  std::vector<trial_outcome> h;
  auto predictor = [&ctx](const training_config& c) -> const perf_prediction& {
    static perf_prediction p;
    p = predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec);
    return p;
  };
  safety_guards g(ctx, h, predictor);
  auto bad = parse_config("mbs=3", base_config());
  EXPECT_EQ(*g.constraint(bad), "outside the search space (mbs=3)");
  auto odd = parse_config("tp=8,pp=4", base_config());
  auto r = g.constraint(odd);
  ASSERT_TRUE(r);
  EXPECT_NE(r->find("violates a Megatron rule"), std::string::npos);
}

// A replay pool's measured set: the reasoner ranks only its configurations,
// and the guards name any other one unavailable.
TEST(safety_guards, a_replay_pool_makes_unmeasured_configurations_unavailable) {
  auto ctx = appendix_d_context();
  const auto a = parse_config("tp=2,mbs=1,recompute=full", base_config());
  const auto b = parse_config("tp=4,mbs=1,recompute=full", base_config());
  const auto c = parse_config("tp=4,mbs=2,recompute=full", base_config());
  ctx.initial = a;
  ctx.measured = {a, b, c};
  auto predictor = [&ctx](const training_config& x) -> const perf_prediction& {
    static perf_prediction p;
    p = predict(ctx.model, ctx.cluster, ctx.world_size, x, ctx.prec);
    return p;
  };
  safety_guards g(ctx, {}, predictor);
  EXPECT_FALSE(g.constraint(b));
  EXPECT_EQ(*g.constraint(parse_config("tp=8,mbs=1,recompute=full", base_config())),
            unavailable_reason);
  const auto after = analyze(ctx, {ran(a, 0.4, 30000, 70)});
  ASSERT_FALSE(after.ranked.empty()) << after.reasoning;
  for (const auto& s : after.ranked)
    EXPECT_TRUE(fingerprint(s.config) == fingerprint(b) || fingerprint(s.config) == fingerprint(c))
        << canonical_key(s.config);
}

} // namespace
} // namespace paratune

#include "core/tuning/failure_analysis.hpp"

namespace paratune {
namespace {

TEST(failure_analysis, out_of_memory_blames_micro_batch_and_recompute) {
  auto c = parse_config("mbs=4,recompute=none");
  auto v = analyze_failure(failure_kind::oom, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.", c, 1);
  EXPECT_EQ(v.kind, failure_kind::oom);
  EXPECT_EQ(v.blamed, (std::vector<std::string>{"mbs", "recompute"}));
  EXPECT_FALSE(v.retry);
  EXPECT_EQ(v.summary, "MBS 4 with AC none caused CUDA OutOfMemoryError (Confidence: 92)");
}

TEST(failure_analysis, assertion_names_the_parameter) {
  auto c = parse_config("tp=4,pp=2");
  auto v = analyze_failure(failure_kind::config_invalid,
                           "num_attention_heads (14) must be a multiple of tensor_model_parallel_size (4).", c, 1);
  EXPECT_EQ(v.kind, failure_kind::config_invalid);
  EXPECT_EQ(v.blamed, std::vector<std::string>{"tp"});
  EXPECT_EQ(v.confidence, 95);
  EXPECT_NE(v.summary.find("TP 4 caused a start-up assertion"), std::string::npos);
}

TEST(failure_analysis, timeouts_and_lost_nodes_are_retried) {
  training_config c;
  auto t = analyze_failure(failure_kind::nccl_timeout, "Watchdog caught collective operation timeout", c, 1);
  EXPECT_EQ(t.kind, failure_kind::nccl_timeout);
  EXPECT_TRUE(t.retry);
  EXPECT_TRUE(t.blamed.empty());
  auto n = analyze_failure(failure_kind::other, "RuntimeError: NCCL communicator was aborted on rank 9. Original reason for "
                           "failure was: NCCL error: remote process exited or there was a network error", c, 1);
  EXPECT_EQ(n.kind, failure_kind::node_failure);
  EXPECT_TRUE(n.retry);
  EXPECT_EQ(n.summary, "A peer process or node was lost. No parameter issue. RETRY (Confidence: 75)");
}

TEST(failure_analysis, a_job_that_never_started_is_a_launcher_error_retried_elsewhere) {
  training_config c;
  const auto refused = analyze_failure(
    failure_kind::launcher_error,
    "slurm: the job was not submitted: sbatch: error: invalid partition specified: gone", c, 125);
  EXPECT_EQ(refused.kind, failure_kind::launcher_error);
  EXPECT_TRUE(refused.retry);
  EXPECT_EQ(refused.confidence, 90);
  EXPECT_EQ(refused.summary, "The job never reached training (slurm: the job was not submitted: "
                             "sbatch: error: invalid partition specified: gone). No parameter "
                             "issue. RETRY on another pool (Confidence: 90)");
  const auto missing = analyze_failure(failure_kind::none, "", c, 127);
  EXPECT_EQ(missing.kind, failure_kind::launcher_error);
  EXPECT_NE(missing.summary.find("exit status 127"), std::string::npos);
}

TEST(failure_analysis, slurm_node_failures_are_node_failures) {
  training_config c;
  const auto v = analyze_failure(failure_kind::none,
                                 "slurm: job 42 ended NODE_FAIL (NodeDown)", c, 1);
  EXPECT_EQ(v.kind, failure_kind::node_failure);
  EXPECT_TRUE(v.retry);
  const auto step = analyze_failure(
    failure_kind::none, "slurmstepd: error: *** JOB 42 ON gpu7 CANCELLED AT 2026-11-25T10:00:01 "
                        "DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***", c, 1);
  EXPECT_EQ(step.kind, failure_kind::node_failure);
}

TEST(failure_analysis, only_unsure_or_infrastructure_failures_are_retried) {
  EXPECT_TRUE(worth_retrying(failure_kind::other, 10, false));
  EXPECT_TRUE(worth_retrying(failure_kind::nan, 40, false));
  EXPECT_FALSE(worth_retrying(failure_kind::config_invalid, 60, false));
  EXPECT_FALSE(worth_retrying(failure_kind::oom, 92, true));
  EXPECT_FALSE(worth_retrying(failure_kind::config_invalid, 95, true));
  EXPECT_TRUE(worth_retrying(failure_kind::node_failure, 75, false));
  training_config c;
  EXPECT_TRUE(analyze_failure(failure_kind::other, "Segmentation fault", c, 139).retry);
  EXPECT_FALSE(analyze_failure(failure_kind::oom, "CUDA out of memory", c, 1).retry);
}

} // namespace
} // namespace paratune
