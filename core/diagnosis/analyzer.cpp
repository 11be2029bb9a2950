#include "core/diagnosis/analyzer.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/diagnosis/limiting_factor.hpp"
#include "core/diagnosis/plausibility.hpp"

namespace paratune {

namespace {

using score_map = std::map<std::string, double>;

top_op make_top_op(const op_evidence& op) {
  top_op t;
  t.name = op.name;
  t.category = op.category;
  t.time_share = op.time_share;
  t.flops_utilization = op.flops_utilization.value_or(-1);
  t.hbm_bw_utilization = op.hbm_bw_utilization.value_or(-1);
  t.roofline_efficiency = op.roofline_efficiency.value_or(-1);
  t.bound_by = op.bound_by;
  t.resource = classify_op(op);
  t.why = explain_class(op, t.resource);
  return t;
}

// Shares per class, normalised over the ops given.
score_map class_shares(const std::vector<const op_evidence*>& ops) {
  score_map shares;
  double total = 0;
  for (const auto* op : ops) {
    shares[to_string(classify_op(*op))] += op->time_share;
    total += op->time_share;
  }
  if (total > 0)
    for (auto& [k, v] : shares)
      v /= total;
  return shares;
}

void score_ops(const diagnosis_evidence& e, const analyzer_options& o, diagnosis_report& r,
               score_map& scores) {
  std::vector<const op_evidence*> all, top;
  for (const auto& op : e.ops)
    if (op.time_share > 0)
      all.push_back(&op);
  std::stable_sort(all.begin(), all.end(), [](auto* a, auto* b) {
    return a->time_share > b->time_share;
  });
  top.assign(all.begin(), all.begin() + std::min(all.size(), o.top_n));
  for (const auto* op : top)
    r.top_ops.push_back(make_top_op(*op));
  r.time_by_class = class_shares(all);
  const auto top_shares = class_shares(top);
  // Op classes explain the busy time only; an idle device's ops say little.
  const double busy = std::clamp(e.kpis.duty_cycle_percent.value_or(100) / 100, 0.0, 1.0);
  for (const op_class c : all_op_classes) {
    auto get = [&](const score_map& m) {
      auto it = m.find(to_string(c));
      return it == m.end() ? 0.0 : it->second;
    };
    scores[to_string(bottleneck_of(c))] +=
        busy * (o.top_weight * get(top_shares) + (1 - o.top_weight) * get(r.time_by_class));
  }
}

// What the KPIs alone say about waiting, memory and the pipeline.
void score_kpis(const kpi_evidence& k, const analyzer_options& o, bool have_ops, score_map& s) {
  const auto& t = o.thresholds;
  // Without an op profile, a high FLOP utilisation is the only sign of a
  // compute-bound step.
  if (!have_ops && k.flops_utilization_percent && *k.flops_utilization_percent >= t.flops_ok)
    s["compute"] = std::max(s["compute"], std::min(1.0, *k.flops_utilization_percent / 100));
  if (k.oom)
    s["memory_capacity"] = 1.0;
  else if (k.memory_used_mib && k.memory_limit_mib && *k.memory_limit_mib > 0) {
    const double pct = 100 * *k.memory_used_mib / *k.memory_limit_mib;
    s["memory_capacity"] = pct >= t.memory_bad ? 0.7 : pct >= t.memory_warn ? 0.35 : 0.0;
  }
  // Waiting, the bubble and exposed collectives score their share of the step.
  double waiting = 0;
  if (k.duty_cycle_percent && *k.duty_cycle_percent < t.duty_ok)
    waiting = std::max(waiting, (100 - *k.duty_cycle_percent) / 100);
  for (auto share : {k.infeed_percent, k.input_percent})
    if (share && *share >= t.infeed_ok)
      waiting = std::max(waiting, *share / 100);
  // Host-memory copies (score_ops) already count toward input_host: the
  // larger of the two signals stands.
  s["input_host"] = std::max(s["input_host"], std::min(1.0, waiting));
  if (k.bubble_percent && *k.bubble_percent >= t.bubble_ok)
    s["pipeline_bubble"] = std::min(1.0, *k.bubble_percent / 100);
  if (k.exposed_comm_percent)
    s["communication"] = std::max(s["communication"], std::min(1.0, *k.exposed_comm_percent / 100));
  else if (k.comm_percent && *k.comm_percent >= t.comm_bad)
    s["communication"] = std::max(s["communication"], *k.comm_percent / 100);
}

void pick_class(diagnosis_report& r, const score_map& scores, const analyzer_options& o) {
  std::vector<std::pair<std::string, double>> ranked(scores.begin(), scores.end());
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  r.scores = scores;
  const auto best = ranked.empty() ? std::pair<std::string, double>{"unknown", 0} : ranked[0];
  const double second = ranked.size() > 1 ? ranked[1].second : 0;
  if (best.second < o.min_score || best.first == "unknown") {
    r.bottleneck = bottleneck_class::unknown;
  } else {
    parse_bottleneck(best.first, r.bottleneck);
  }
  if (ranked.size() > 1 && ranked[1].second >= 0.15 && ranked[1].first != "unknown")
    parse_bottleneck(ranked[1].first, r.secondary);
  r.confidence = std::clamp(0.35 + 0.5 * best.second + 0.5 * (best.second - second), 0.05, 0.95);
  if (r.partial)
    r.confidence *= 0.85;
}

// A throughput the hardware cannot deliver means the numbers the classes
// were scored from are miscounted (wrong device count, a fork's own FLOP
// formula): the class may still be right, but it rests on a wrong number.
// Implausible keeps 60% of the confidence, impossible 40%.
// Returns whether it did.
bool weigh_plausibility(const diagnosis_evidence& e, diagnosis_report& r) {
  const auto finding = check_throughput(e.kpis, e.device);
  if (finding.plausible)
    return false;
  const double keep = finding.impossible ? 0.4 : 0.6;
  r.warnings.push_back(finding.warning
                       + fmt::format("; the diagnosis keeps {:.0f}% of its confidence", 100 * keep));
  r.confidence = std::max(0.05, r.confidence * keep);
  return true;
}

void kpi_evidence_lines(const diagnosis_report& r, std::vector<std::string>& out) {
  for (const auto& c : r.kpis)
    if (c.status != "info" || c.name == "step_time")
      out.push_back(c.name + " " + fmt::format("{:.2f}", c.value) + " " + c.unit + " ("
                    + c.status + "): " + c.note);
}

void op_evidence_lines(const diagnosis_report& r, std::vector<std::string>& out) {
  std::string classes;
  for (const auto& [k, v] : r.time_by_class)
    classes += (classes.empty() ? "" : ", ") + k + fmt::format(" {:.1f}%", 100 * v);
  if (!classes.empty())
    out.push_back("profiled op time by resource: " + classes);
  int n = 0;
  for (const auto& t : r.top_ops) {
    const auto name = t.name.size() > 90 ? t.name.substr(0, 87) + "..." : t.name;
    out.push_back(fmt::format("top op {}: ", ++n) + name + " [" + t.category + "] "
                  + fmt::format("{:.2f}% of time, ", 100 * t.time_share) + t.why + " -> "
                  + to_string(t.resource));
  }
}

std::string summary_of(const diagnosis_report& r, bool implausible) {
  std::string s = std::string("The step is ") + to_string(r.bottleneck) + "-bound";
  if (r.bottleneck == bottleneck_class::unknown)
    s = "The evidence does not single out one bottleneck";
  s += fmt::format(" (confidence {:.0f}%)", 100 * r.confidence);
  if (r.secondary != bottleneck_class::unknown)
    s += std::string(", with ") + to_string(r.secondary) + " second";
  s += ". ";
  const bool op_class_bottleneck = r.bottleneck == bottleneck_class::compute
                                   || r.bottleneck == bottleneck_class::hbm_bandwidth
                                   || r.bottleneck == bottleneck_class::communication;
  int same = 0;
  for (const auto& t : r.top_ops)
    same += bottleneck_of(t.resource) == r.bottleneck;
  if (!r.top_ops.empty() && op_class_bottleneck)
    s += fmt::format("{} of the top {} operations are ", same, r.top_ops.size())
         + to_string(r.bottleneck) + "-bound.";
  else if (r.bottleneck == bottleneck_class::input_host && same > 0)
    s += fmt::format("{} of the top {} operations are copies to or from host memory, bounded "
                     "by the host link.",
                     same, r.top_ops.size());
  if (implausible)
    s += "The measured throughput is beyond what the hardware delivers; see the warnings.";
  if (r.partial)
    s += " Some input was missing or damaged; the result is partial.";
  return s;
}

} // namespace

const char* to_string(bottleneck_class b) {
  switch (b) {
    case bottleneck_class::compute: return "compute";
    case bottleneck_class::hbm_bandwidth: return "hbm_bandwidth";
    case bottleneck_class::memory_capacity: return "memory_capacity";
    case bottleneck_class::communication: return "communication";
    case bottleneck_class::pipeline_bubble: return "pipeline_bubble";
    case bottleneck_class::input_host: return "input_host";
    case bottleneck_class::unknown: return "unknown";
  }
  return "unknown";
}

bool parse_bottleneck(const std::string& text, bottleneck_class& out) {
  for (auto b : {bottleneck_class::compute, bottleneck_class::hbm_bandwidth,
                 bottleneck_class::memory_capacity, bottleneck_class::communication,
                 bottleneck_class::pipeline_bubble, bottleneck_class::input_host,
                 bottleneck_class::unknown})
    if (text == to_string(b)) {
      out = b;
      return true;
    }
  return false;
}

bottleneck_class bottleneck_of(op_class c) {
  switch (c) {
    case op_class::compute: return bottleneck_class::compute;
    case op_class::hbm_bandwidth: return bottleneck_class::hbm_bandwidth;
    case op_class::communication: return bottleneck_class::communication;
    case op_class::host_transfer: return bottleneck_class::input_host;
    case op_class::unknown: return bottleneck_class::unknown;
  }
  return bottleneck_class::unknown;
}

const char* to_string(device_platform p) {
  return p == device_platform::tpu ? "tpu" : "gpu";
}

diagnosis_report analyze_evidence(const diagnosis_evidence& e, const analyzer_options& o) {
  diagnosis_report r;
  r.platform = e.platform;
  r.sources = e.sources;
  r.partial = e.partial;
  r.warnings = e.warnings;
  r.kpis = check_kpis(e.kpis, o.thresholds);
  for (const auto& [name, ms] : e.timers_ms)
    if (looks_collective(name, "") || name.find("all-reduce") != std::string::npos)
      r.collective_ms[name] = ms;
  score_map scores;
  score_ops(e, o, r, scores);
  score_kpis(e.kpis, o, !r.top_ops.empty(), scores);
  pick_class(r, scores, o);
  const bool implausible = weigh_plausibility(e, r);
  flag_bottleneck_kpis(r);
  kpi_evidence_lines(r, r.evidence);
  op_evidence_lines(r, r.evidence);
  r.summary = summary_of(r, implausible);
  return r;
}

} // namespace paratune
