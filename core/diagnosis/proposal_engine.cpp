#include "core/diagnosis/proposal_engine.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "core/human_units.hpp"
#include "core/diagnosis/limiting_factor.hpp"
#include "core/diagnosis/proposal_candidates.hpp"
#include "core/tpu/mesh_planner.hpp"

namespace paratune {

namespace {

const char* bottleneck_words(bottleneck_class b) {
  switch (b) {
    case bottleneck_class::compute: return "compute bound MXU FLOP utilization efficiency";
    case bottleneck_class::hbm_bandwidth: return "HBM bandwidth bound memory-bound weights";
    case bottleneck_class::communication: return "communication bound collectives interconnect";
    case bottleneck_class::memory_capacity: return "memory capacity out of memory OOM";
    case bottleneck_class::pipeline_bubble: return "pipeline bubble micro-batches stages";
    case bottleneck_class::input_host: return "input pipeline host stall infeed";
    default: return "parallelism configuration";
  }
}

const char* key_words(const std::string& key) {
  if (key == "model" || key == "tp") return "tensor model parallelism";
  if (key == "data" || key == "replica") return "data parallelism";
  if (key == "fsdp") return "FSDP fully sharded";
  if (key == "seq" || key == "cp") return "sequence context parallelism";
  if (key == "expert" || key == "ep") return "expert parallelism";
  if (key == "pp" || key == "vpp") return "pipeline parallelism";
  if (key == "mbs") return "micro-batch size";
  if (key == "recompute") return "recomputation remat";
  if (key == "overlap_grad" || key == "overlap_param") return "overlap communication";
  if (key == "dist_opt") return "distributed optimizer sharding";
  if (key == "sp") return "sequence parallel tensor";
  return "";
}

// Ordering tiers: what attacks the bottleneck and is predicted faster
// first; then faster moves that do not feed the bottleneck; then targeted
// moves the model thinks slower; moves that feed the bottleneck last.
int tier(const candidate& c, double base_step) {
  const bool faster = c.step_s < base_step;
  const bool feeds = c.metric_after > c.metric_before * 1.05;
  if (c.targeted && faster)
    return 0;
  if (faster && !feeds)
    return 1;
  if (c.targeted)
    return 2;
  return faster ? 3 : 4;
}

// The proposals: candidates predicted faster than a baseline that runs,
// by tier then step time. When fewer than `count` are, the best targeted
// slower move (targeted first, by tier) is kept as one exploratory alternative, so that the model's
// own errors can be found out by a trial. A baseline that does not fit is
// no yardstick: every fitting layout beats it.
struct choice {
  std::vector<const candidate*> faster;
  const candidate* exploratory = nullptr;
};

choice choose(const candidate_pool& pool, std::size_t count) {
  std::vector<const candidate*> all;
  for (const auto& c : pool.candidates)
    all.push_back(&c);
  const double base = pool.baseline.step_s > 0 && pool.baseline_fits ? pool.baseline.step_s : 1e300;
  std::stable_sort(all.begin(), all.end(), [&](const candidate* a, const candidate* b) {
    const int ta = tier(*a, base), tb = tier(*b, base);
    return ta != tb ? ta < tb : a->step_s < b->step_s;
  });
  choice out;
  for (const auto* c : all) {
    if (c->step_s < base && out.faster.size() < count)
      out.faster.push_back(c);
    else if (c->step_s >= base && !out.exploratory)
      out.exploratory = c;
  }
  if (out.faster.size() >= count)
    out.exploratory = nullptr;
  return out;
}

// The largest factor a mesh move shifts; Megatron changes count as 2.
double move_factor(const experiment_spec& exp, const candidate& c) {
  if (!c.mesh)
    return 2;
  double f = 1;
  for (auto a : all_mesh_axes)
    f = std::max(f, double(c.mesh->at(a)) / exp.mesh.at(a));
  return f;
}

double confidence_of(const proposal_context& ctx, const candidate& c, const proposal& p,
                     double history_similarity, bool baseline_fits) {
  // A layout that runs beats one that does not, whatever the model says of speed.
  const double gain = baseline_fits ? std::clamp((p.predicted.speedup - 1) * 5, 0.0, 1.0) : 1.0;
  double conf = 0.45 * ctx.report->confidence + 0.25 * gain + (c.targeted ? 0.1 : 0.0)
                + 0.1 * history_similarity;
  for (const auto& cit : p.citations)
    if (cit.kind == "knowledge") {
      conf += 0.05;
      break;
    }
  // Predictions far from the measured point are less reliable.
  conf -= 0.05 * std::max(0.0, std::log2(move_factor(*ctx.experiment, c)) - 1);
  if (baseline_fits && p.predicted.speedup < 1)
    conf *= 0.6;
  return std::clamp(conf, 0.1, 0.95);
}

void cite_history(const proposal_context& ctx, const candidate& c, proposal& p, double& best) {
  if (!ctx.history)
    return;
  auto matches = match_history(*ctx.history, *ctx.experiment, ctx.report->bottleneck, c.grown,
                               c.shrunk);
  for (std::size_t i = 0; i < matches.size() && i < 2; ++i) {
    const auto& r = *matches[i].record;
    best = std::max(best, matches[i].similarity);
    p.citations.push_back({"history", r.id, r.title, matches[i].similarity,
                           r.model + " on " + r.hardware + ": " + r.before + " -> " + r.after
                               + fmt::format(" (x{:.2f} throughput", r.speedup) + "; " + r.impact
                               + ")"});
  }
}

void cite_knowledge(const proposal_context& ctx, const candidate& c, proposal& p) {
  if (!ctx.knowledge)
    return;
  const auto query = knowledge_query(ctx.report->bottleneck, c.grown, c.shrunk);
  for (auto& hit : ctx.knowledge(query, 2))
    p.citations.push_back(std::move(hit));
}


} // namespace

// A measured step and no out-of-memory: the current layout ran. The
// memory KPI is the measured peak as a share of the device.
baseline_evidence baseline_evidence_of(const proposal_context& ctx) {
  baseline_evidence e;
  const auto& r = *ctx.report;
  bool oom = r.bottleneck == bottleneck_class::memory_capacity;
  for (const auto& k : r.kpis)
    if (k.name == "memory") {
      oom = oom || k.status == "bad";
      if (k.unit == "%" && k.value > 0 && k.value <= 100)
        e.memory_used_gib = k.value / 100 * ctx.experiment->cluster.device.hbm_gib;
    }
  e.ran = ctx.measured_step_ms > 0 && !oom;
  if (!e.ran)
    e.memory_used_gib = 0;
  return e;
}

proposal proposal_of(const proposal_context& ctx, const candidate_pool& pool, const candidate& c) {
  proposal p;
  p.title = c.title;
  p.mesh = c.mesh;
  p.config = c.config;
  p.change = c.change;
  p.rationale = c.rationale;
  p.tradeoffs = c.tradeoffs;
  p.targeted = c.targeted;
  const double model_before = pool.baseline.step_s * 1000;
  const double before = ctx.measured_step_ms > 0 ? ctx.measured_step_ms : model_before;
  const double ratio = pool.baseline.step_s > 0 ? c.step_s / pool.baseline.step_s : 1;
  p.predicted.step_ms_before = before;
  p.predicted.step_ms_after = before * ratio;
  p.predicted.speedup = ratio > 0 ? 1 / ratio : 1;
  p.predicted.mfu_after = c.mfu;
  p.predicted.memory_gib_after = c.memory_gib;
  p.predicted.memory_limit_gib = c.memory_limit_gib;
  p.predicted.metric = c.metric;
  p.predicted.metric_before = c.metric_before;
  p.predicted.metric_after = c.metric_after;
  double history_similarity = 0;
  cite_history(ctx, c, p, history_similarity);
  cite_knowledge(ctx, c, p);
  p.confidence = confidence_of(ctx, c, p, history_similarity, pool.baseline_fits);
  return p;
}

namespace {

// Why fewer than `count` proposals are predicted to improve.
std::string explain_shortfall(const candidate_pool& pool, std::size_t faster, std::size_t count) {
  if (!pool.baseline_fits)
    return fmt::format("only {} valid layouts fit in memory (of the {} wanted)", faster, count);
  return fmt::format("only {} of the {} valid, fitting changes considered {} predicted faster "
                     "than the current layout, so {} proposal{} of the {} wanted",
                     faster, pool.candidates.size(), faster == 1 ? "is" : "are", faster,
                     faster == 1 ? "" : "s", count);
}

// Where the profile, predict -e and plan -e stand on the same TPU job
// (limiting_factor.hpp, rules 2 and 3).
void reconcile_with_model(const experiment_spec& exp, const diagnosis_report& report,
                          proposal_set& out) {
  const auto model = predict_mesh(exp.model, exp.cluster, exp.slice, exp.mesh, exp.dcn_mesh,
                                  exp.workload);
  if (!model.valid())
    return;
  out.notes.push_back(compare_limiting(report, model).explanation);
  mesh_plan_request request;
  request.model = exp.model;
  request.cluster = exp.cluster;
  request.slice = exp.slice;
  request.workload = exp.workload;
  request.top = 1;
  const auto plan = plan_meshes(request);
  std::optional<mesh_prediction> best;
  if (!plan.top.empty())
    best = plan.top.front().prediction;
  out.notes.push_back(compare_with_plan(exp.mesh, model, best, out.proposals));
}

} // namespace

std::string knowledge_query(bottleneck_class b, const std::vector<std::string>& grown,
                            const std::vector<std::string>& shrunk) {
  std::string q = bottleneck_words(b);
  for (const auto& k : grown)
    q += std::string(" increase ") + key_words(k);
  for (const auto& k : shrunk)
    q += std::string(" reduce ") + key_words(k);
  return q;
}

proposal_set propose(const proposal_context& ctx) {
  const auto& exp = *ctx.experiment;
  const auto& report = *ctx.report;
  const auto pool = exp.platform == device_platform::tpu
                        ? mesh_candidates(exp, report, baseline_evidence_of(ctx))
                        : megatron_candidates(exp, report);
  proposal_set out;
  out.bottleneck = report.bottleneck;
  out.baseline = exp.platform == device_platform::tpu ? to_string(exp.mesh)
                                                      : canonical_key(exp.megatron);
  out.model_step_ms = pool.baseline.step_s * 1000;
  out.measured_step_ms = ctx.measured_step_ms;
  out.notes = pool.notes;
  if (!pool.baseline_fits)
    out.notes.push_back("the current layout does not fit in memory: its predicted step time is "
                        "only a reference for the proposals' predictions");
  if (ctx.measured_step_ms > 0 && out.model_step_ms > 0)
    out.notes.push_back(fmt::format("model step time {} vs measured {} (x{:.2f}): "
                                    "predictions are scaled to the measurement",
                                    human_duration(out.model_step_ms),
                                    human_duration(ctx.measured_step_ms),
                                    ctx.measured_step_ms / out.model_step_ms));
  const auto chosen = choose(pool, ctx.count);
  int rank = 0;
  for (const auto* c : chosen.faster) {
    auto p = proposal_of(ctx, pool, *c);
    p.rank = ++rank;
    out.proposals.push_back(std::move(p));
  }
  if (chosen.faster.size() < ctx.count)
    out.notes.push_back(explain_shortfall(pool, chosen.faster.size(), ctx.count));
  if (chosen.exploratory) {
    auto p = proposal_of(ctx, pool, *chosen.exploratory);
    p.rank = ++rank;
    p.exploratory = true;
    p.title = fmt::format("Exploration, predicted {:.0f}% slower: {}",
                          100 * (1 - p.predicted.speedup), p.title);
    out.proposals.push_back(std::move(p));
  }
  rank_confidence(out.proposals);
  if (exp.platform == device_platform::tpu)
    reconcile_with_model(exp, report, out);
  return out;
}

} // namespace paratune
