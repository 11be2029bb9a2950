#include "messages/diagnosis_conversions.hpp"

#include "core/input_error.hpp"
#include "messages/codec.hpp"

namespace paratune::wire {

namespace {

kpi_check_wire to_wire(const kpi_check& c) {
  return {c.name, c.unit, c.status, c.note, c.value};
}

kpi_check from_wire(const kpi_check_wire& w) {
  return {w.name, w.value, w.unit, w.status, w.note};
}

top_op_wire to_wire(const top_op& t) {
  return {t.name,       t.category,          t.bound_by,           paratune::to_string(t.resource),
          t.why,        t.time_share,        t.flops_utilization,  t.hbm_bw_utilization,
          t.roofline_efficiency};
}

top_op from_wire(const top_op_wire& w) {
  top_op t;
  t.name = w.name;
  t.category = w.category;
  t.bound_by = w.bound_by;
  t.why = w.why;
  t.time_share = w.time_share;
  t.flops_utilization = w.flops_utilization;
  t.hbm_bw_utilization = w.hbm_bw_utilization;
  t.roofline_efficiency = w.roofline_efficiency;
  parse_op_class(w.resource, t.resource);  // an unknown word stays op_class::unknown
  return t;
}

bottleneck_class class_of(const std::string& name) {
  bottleneck_class b = bottleneck_class::unknown;
  if (!name.empty() && !parse_bottleneck(name, b))
    throw input_error("unknown bottleneck class '" + name + "'");
  return b;
}

proposal_wire to_wire(const paratune::proposal& p) {
  proposal_wire w;
  w.rank = p.rank;
  w.title = p.title;
  w.mesh = p.mesh ? paratune::to_string(*p.mesh) : "";
  if (p.config)
    w.config = to_map(*p.config);
  w.change = p.change;
  w.rationale = p.rationale;
  w.tradeoffs = p.tradeoffs;
  w.metric = p.predicted.metric;
  w.step_ms_before = p.predicted.step_ms_before;
  w.step_ms_after = p.predicted.step_ms_after;
  w.speedup = p.predicted.speedup;
  w.mfu_after = p.predicted.mfu_after;
  w.memory_gib_after = p.predicted.memory_gib_after;
  w.memory_limit_gib = p.predicted.memory_limit_gib;
  w.metric_before = p.predicted.metric_before;
  w.metric_after = p.predicted.metric_after;
  w.confidence = p.confidence;
  w.targeted = p.targeted;
  w.exploratory = p.exploratory;
  for (const auto& c : p.citations)
    w.citations.push_back({c.kind, c.id, c.title, c.excerpt, c.score});
  return w;
}

} // namespace

optimization_record to_wire(const past_optimization& r) {
  return {r.id,     r.title,  r.platform,       r.model,   r.hardware, r.bottleneck,
          r.before, r.after,  r.impact,         r.source,  r.params_billion,
          r.devices, r.speedup};
}

past_optimization from_wire(const optimization_record& w) {
  past_optimization r;
  r.id = w.id;
  r.title = w.title;
  r.platform = w.platform;
  r.model = w.model;
  r.params_billion = w.params_billion;
  r.hardware = w.hardware;
  r.devices = w.devices;
  r.bottleneck = w.bottleneck;
  r.before = w.before;
  r.after = w.after;
  r.speedup = w.speedup;
  r.impact = w.impact;
  r.source = w.source;
  return r;
}

diagnosis to_wire(const diagnosis_report& r, double measured_step_ms) {
  diagnosis w;
  w.platform = paratune::to_string(r.platform);
  w.bottleneck = paratune::to_string(r.bottleneck);
  w.secondary = paratune::to_string(r.secondary);
  w.summary = r.summary;
  w.confidence = r.confidence;
  w.measured_step_ms = measured_step_ms;
  for (const auto& k : r.kpis)
    w.kpis.push_back(to_wire(k));
  for (const auto& t : r.top_ops)
    w.top_ops.push_back(to_wire(t));
  w.time_by_class = r.time_by_class;
  w.collective_ms = r.collective_ms;
  w.scores = r.scores;
  w.evidence = r.evidence;
  w.sources = r.sources;
  w.warnings = r.warnings;
  w.partial = r.partial;
  return w;
}

diagnosis_report from_wire(const diagnosis& w) {
  diagnosis_report r;
  r.platform = w.platform == "gpu" ? device_platform::gpu : device_platform::tpu;
  r.bottleneck = class_of(w.bottleneck);
  r.secondary = class_of(w.secondary);
  r.summary = w.summary;
  r.confidence = w.confidence;
  for (const auto& k : w.kpis)
    r.kpis.push_back(from_wire(k));
  for (const auto& t : w.top_ops)
    r.top_ops.push_back(from_wire(t));
  r.time_by_class = w.time_by_class;
  r.collective_ms = w.collective_ms;
  r.scores = w.scores;
  r.evidence = w.evidence;
  r.sources = w.sources;
  r.warnings = w.warnings;
  r.partial = w.partial;
  return r;
}

proposal_set to_wire(const paratune::proposal_set& s) {
  proposal_set w;
  w.bottleneck = paratune::to_string(s.bottleneck);
  w.baseline = s.baseline;
  w.model_step_ms = s.model_step_ms;
  w.measured_step_ms = s.measured_step_ms;
  for (const auto& p : s.proposals)
    w.proposals.push_back(to_wire(p));
  w.notes = s.notes;
  return w;
}

std::vector<past_optimization> optimizations_of(const std::vector<envelope>& history) {
  std::vector<past_optimization> out;
  for (const auto& e : history) {
    if (e.type != type_name<optimization_record>())
      continue;
    try {
      out.push_back(from_wire(body_of<optimization_record>(e)));
    } catch (const decode_error&) {
      // a damaged record is not history
    }
  }
  return out;
}

} // namespace paratune::wire
