// GPU proposals: single changes of a Megatron-LM configuration, predicted
// with core/perf and screened by Megatron's own start-up rules.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include <fmt/format.h>

#include "core/megatron_rules.hpp"
#include "core/human_units.hpp"
#include "core/perf/perf_model.hpp"
#include "core/diagnosis/past_optimization.hpp"
#include "core/diagnosis/proposal_candidates.hpp"

namespace paratune {

namespace {

// Every single-key change worth trying from `c`.
std::vector<training_config> single_changes(const training_config& c) {
  std::vector<training_config> out;
  auto with = [&](auto&& edit) {
    training_config n = c;
    edit(n);
    if (!(n == c))
      out.push_back(n);
  };
  for (int f : {2, 4}) {
    with([&](training_config& n) { n.tp *= f; n.sp = n.tp > 1 && (c.sp || c.tp == 1); });
    if (c.tp % f == 0)
      with([&](training_config& n) { n.tp /= f; n.sp = n.sp && n.tp > 1; });
    with([&](training_config& n) { n.pp *= f; });
    if (c.pp % f == 0)
      with([&](training_config& n) { n.pp /= f; n.vpp = 1; });
    with([&](training_config& n) { n.cp *= f; });
    if (c.cp % f == 0)
      with([&](training_config& n) { n.cp /= f; });
    with([&](training_config& n) { n.mbs *= f; });
    if (c.pp > 1)
      with([&](training_config& n) { n.vpp *= f; });
  }
  // Smaller micro-batches by any power of two: the usual way out of memory.
  for (int f = 2; f <= c.mbs; f *= 2)
    if (c.mbs % f == 0)
      with([&](training_config& n) { n.mbs /= f; });
  for (auto r : {recompute_mode::none, recompute_mode::selective, recompute_mode::full})
    with([&](training_config& n) { n.recompute = r; });
  with([&](training_config& n) { n.dist_opt = true; });
  with([&](training_config& n) { n.overlap_grad = true; });
  with([&](training_config& n) { // with what Megatron-LM needs under it
    n.overlap_param = true;
    n.overlap_grad = true;
    n.dist_opt = true;
  });
  with([&](training_config& n) { n.fused_ce = true; });
  if (c.tp > 1)
    with([&](training_config& n) { n.sp = true; });
  return out;
}

double exposed_comm(const perf_prediction& p) {
  const auto& t = p.time;
  return t.tp_comm_s + t.dp_comm_s + t.pp_comm_s + t.ep_comm_s + t.cp_comm_s;
}

struct gpu_metric {
  std::string name;
  std::function<double(const perf_prediction&)> value;
};

gpu_metric metric_for(bottleneck_class b) {
  switch (b) {
    case bottleneck_class::communication:
      return {"exposed communication (s/iteration)", exposed_comm};
    case bottleneck_class::memory_capacity:
      return {"peak memory per GPU (GiB)",
              [](const perf_prediction& p) { return p.peak_memory_mib / 1024; }};
    case bottleneck_class::pipeline_bubble:
      return {"pipeline bubble (s/iteration)",
              [](const perf_prediction& p) { return p.time.bubble_s; }};
    case bottleneck_class::compute:
    case bottleneck_class::hbm_bandwidth:
      return {"compute and recompute time (s/iteration)",
              [](const perf_prediction& p) { return p.time.compute_s + p.time.recompute_s; }};
    default:
      return {"iteration time (s)",
              [](const perf_prediction& p) { return p.iteration_time_s; }};
  }
}

std::string lead_for(bottleneck_class b, const gpu_metric& m, double before, double after) {
  std::string what;
  switch (b) {
    case bottleneck_class::communication:
      what = "The iteration waits on collectives the GPUs cannot hide. ";
      break;
    case bottleneck_class::memory_capacity:
      what = "The job is at (or past) the edge of GPU memory. ";
      break;
    case bottleneck_class::pipeline_bubble:
      what = "Pipeline stages wait for each other. ";
      break;
    case bottleneck_class::compute:
      what = "The GPUs are busy computing; the lever is less or faster computation. ";
      break;
    case bottleneck_class::hbm_bandwidth:
      what = "Memory-bound kernels dominate; larger and fused kernels raise intensity. ";
      break;
    case bottleneck_class::input_host:
      what = "The GPUs wait for input or the host; a layout change helps only once that is "
             "fixed, so this follows the model's iteration time. ";
      break;
    default:
      what = "No single resource dominates; this follows the model's iteration time. ";
  }
  return what + "The model puts " + m.name + fmt::format(" at {:.3g} -> {:.3g}.", before, after);
}

void add_tradeoffs(const training_config& from, const perf_prediction& base,
                   const perf_prediction& p, candidate& c) {
  if (p.peak_memory_mib > base.peak_memory_mib * 1.05)
    c.tradeoffs.push_back(fmt::format("more memory per GPU: {:.0f} -> {:.0f} MiB (of {:.0f} MiB)",
                                      base.peak_memory_mib, p.peak_memory_mib, p.memory_limit_mib));
  if (exposed_comm(p) > exposed_comm(base) * 1.05)
    c.tradeoffs.push_back(
        fmt::format("more exposed communication: {:.3f} -> {:.3f} s per iteration",
                    exposed_comm(base), exposed_comm(p)));
  if (p.time.recompute_s > base.time.recompute_s * 1.05)
    c.tradeoffs.push_back(
        fmt::format("recomputation costs {:.3f} s per iteration", p.time.recompute_s));
  if (p.time.bubble_s > base.time.bubble_s * 1.05)
    c.tradeoffs.push_back(fmt::format("larger pipeline bubble: {:.3f} -> {:.3f} s",
                                      base.time.bubble_s, p.time.bubble_s));
  if (p.iteration_time_s > base.iteration_time_s * 1.02)
    c.tradeoffs.push_back(
        base.fits ? fmt::format("slower per iteration than the current configuration: {:.1f} -> "
                                "{:.1f} TFLOP/s per GPU", base.tflops_per_gpu, p.tflops_per_gpu)
                  : fmt::format("{:.1f} TFLOP/s per GPU, where the current configuration would "
                                "reach {:.1f} if it fit", p.tflops_per_gpu, base.tflops_per_gpu));
  if (c.tradeoffs.empty())
    c.tradeoffs.push_back("no cost the model sees");
}

// The Megatron key whose collective the log says the step waits on most:
// the tied-embedding all-reduce between the first and last pipeline stage
// (pp), or the data-parallel gradient and parameter collectives (dp).
std::string heaviest_collective_key(const diagnosis_report& report) {
  std::string key;
  double most = 0;
  for (const auto& [name, ms] : report.collective_ms) {
    if (ms <= most)
      continue;
    most = ms;
    key = name.find("embedding") != std::string::npos ? "pp" : "dp";
  }
  return key;
}

// A communication proposal must relieve the collective the log measured:
// fewer pipeline stages for the embedding all-reduce, overlap or a sharded
// optimizer for the data-parallel ones.
std::string measured_collective_text(const diagnosis_report& report, const std::string& key) {
  std::string name;
  double ms = 0;
  for (const auto& [n, v] : report.collective_ms)
    if (v > ms) {
      ms = v;
      name = n;
    }
  return " The log's longest collective is " + name
         + " (" + human_duration(ms) + " per iteration)"
         + (key == "pp" ? ", the tied embedding's gradient all-reduced between the first and last "
                          "pipeline stage; a single stage has no such exchange."
                        : ", the data-parallel gradient or parameter exchange; overlapping it "
                          "with the backward pass or sharding the optimizer hides or shrinks it.");
}

bool relieves(const std::string& key, const training_config& from, const training_config& to) {
  if (key == "pp")
    return to.pp == 1 && from.pp > 1;  // two stages still all-reduce the embedding
  if (key == "dp")
    return (to.overlap_grad && !from.overlap_grad) || (to.overlap_param && !from.overlap_param)
           || (to.dist_opt && !from.dist_opt);
  return true;
}

} // namespace

candidate_pool megatron_candidates(const experiment_spec& exp, const diagnosis_report& report) {
  candidate_pool pool;
  const int world = exp.devices();
  const auto metric = metric_for(report.bottleneck);
  const auto base = predict(exp.model, exp.cluster, world, exp.megatron, exp.prec, exp.stack);
  pool.baseline.config = exp.megatron;
  pool.baseline.step_s = base.iteration_time_s;
  pool.baseline.mfu = base.mfu;
  pool.baseline.memory_gib = base.peak_memory_mib / 1024;
  pool.baseline.memory_limit_gib = base.memory_limit_mib / 1024;
  pool.baseline.metric = metric.name;
  pool.baseline.metric_before = pool.baseline.metric_after = metric.value(base);
  pool.baseline_fits = base.fits && report.bottleneck != bottleneck_class::memory_capacity;
  const auto heavy = heaviest_collective_key(report);
  // core/perf does not model Megatron's tied-embedding all-reduce: carry the
  // measured time over to every layout that keeps pipeline stages.
  double embedding_s = 0;
  if (heavy == "pp")
    for (const auto& [name, ms] : report.collective_ms)
      if (name.find("embedding") != std::string::npos)
        embedding_s += ms / 1000;
  pool.baseline.step_s += exp.megatron.pp > 1 ? embedding_s : 0;
  int invalid = 0, too_big = 0;
  for (const auto& cfg : single_changes(exp.megatron)) {
    if (!check_megatron_rules(exp.model, cfg, world).empty()) {
      ++invalid;
      continue;
    }
    const auto p = predict(exp.model, exp.cluster, world, cfg, exp.prec, exp.stack);
    // Advice to a person names only a layout predicted within the device:
    // a tight one is for a tuning run to try, not for a report to recommend
    // when its peak is already past the memory.
    if (!p.fits || p.peak_memory_mib > p.memory_limit_mib) {
      ++too_big;
      continue;
    }
    candidate c;
    c.config = cfg;
    c.change = describe_change(exp.megatron, cfg);
    c.title = "Change " + c.change;
    c.step_s = p.iteration_time_s + (cfg.pp > 1 ? embedding_s : 0);
    c.mfu = p.mfu;
    c.memory_gib = p.peak_memory_mib / 1024;
    c.memory_limit_gib = p.memory_limit_mib / 1024;
    c.metric = metric.name;
    c.metric_before = metric.value(base);
    c.metric_after = metric.value(p);
    // When the log names the collective the step waits on, relieving it is
    // what counts (the model may not see it: Megatron's tied-embedding
    // all-reduce is not modelled); otherwise the model's quantity.
    if (report.bottleneck == bottleneck_class::communication && !heavy.empty())
      c.targeted = relieves(heavy, exp.megatron, cfg);
    else
      c.targeted = c.metric_after < c.metric_before || (!base.fits && p.fits);
    for (const auto& key : config_keys()) {
      const auto a = get_value(exp.megatron, key), b = get_value(cfg, key);
      if (a == b)
        continue;
      (ordinal_value(b) > ordinal_value(a) ? c.grown : c.shrunk).push_back(key);
    }
    c.rationale = lead_for(report.bottleneck, metric, c.metric_before, c.metric_after)
                  + (c.targeted && !heavy.empty() ? measured_collective_text(report, heavy) : "")
                  + fmt::format(" Predicted {:.1f} -> {:.1f} TFLOP/s per GPU, peak memory "
                                "{:.1f} GiB.", base.tflops_per_gpu, p.tflops_per_gpu, c.memory_gib);
    add_tradeoffs(exp.megatron, base, p, c);
    pool.candidates.push_back(std::move(c));
  }
  if (report.bottleneck == bottleneck_class::communication && !heavy.empty()) {
    bool any = false;
    for (const auto& c : pool.candidates)
      any = any || c.targeted;
    pool.notes.push_back(any ? "proposals that change " + heavy
                                   + " relieve the collective the log measured longest"
                             : "no valid single change that fits relieves the collective the log "
                               "measured longest (it needs " + heavy
                                   + " changed); the proposals shorten the iteration elsewhere");
  }
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "%zu single configuration changes considered: %zu valid and fitting, %d refused "
                "by Megatron's rules, %d over memory",
                pool.candidates.size() + invalid + too_big, pool.candidates.size(), invalid,
                too_big);
  pool.notes.push_back(buf);
  return pool;
}

} // namespace paratune
