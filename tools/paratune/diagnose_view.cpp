#include "tools/paratune/diagnose_view.hpp"

#include <sstream>

#include <fmt/format.h>

#include "core/human_units.hpp"

namespace paratune::cli {

namespace {

using nlohmann::json;

json optional_fraction(double v) {
  return v < 0 ? json(nullptr) : json(v);
}

json kpis_json(const wire::diagnosis& d) {
  json out = json::array();
  for (const auto& k : d.kpis)
    out.push_back({{"name", k.name}, {"value", k.value}, {"unit", k.unit},
                   {"status", k.status}, {"note", k.note}});
  return out;
}

json top_ops_json(const wire::diagnosis& d) {
  json out = json::array();
  for (const auto& t : d.top_ops)
    out.push_back({{"name", t.name},
                   {"category", t.category},
                   {"time_share", t.time_share},
                   {"flops_utilization", optional_fraction(t.flops_utilization)},
                   {"hbm_bw_utilization", optional_fraction(t.hbm_bw_utilization)},
                   {"roofline_efficiency", optional_fraction(t.roofline_efficiency)},
                   {"bound_by", t.bound_by},
                   {"resource", t.resource},
                   {"why", t.why}});
  return out;
}

json proposal_json(const wire::proposal_wire& p) {
  json citations = json::array();
  for (const auto& c : p.citations)
    citations.push_back({{"kind", c.kind}, {"id", c.id}, {"title", c.title},
                         {"score", c.score}, {"excerpt", c.excerpt}});
  json j = {{"rank", p.rank},
            {"title", p.title},
            {"change", p.change},
            {"rationale", p.rationale},
            {"tradeoffs", p.tradeoffs},
            {"predicted",
             {{"step_time_ms_before", p.step_ms_before},
              {"step_time_ms", p.step_ms_after},
              {"speedup", p.speedup},
              {"mfu", p.mfu_after},
              {"memory_gib", p.memory_gib_after},
              {"memory_limit_gib", p.memory_limit_gib},
              {"metric", p.metric},
              {"metric_before", p.metric_before},
              {"metric_after", p.metric_after}}},
            {"confidence", p.confidence},
            {"targets_bottleneck", p.targeted},
            {"exploratory", p.exploratory},
            {"citations", citations}};
  if (!p.mesh.empty())
    j["mesh"] = p.mesh;
  if (!p.config.empty())
    j["config"] = p.config;
  return j;
}

void write_kpis(std::ostream& o, const wire::diagnosis& d) {
  o << "KPI health check\n";
  for (const auto& k : d.kpis)
    o << "  " << k.name
      << std::string(k.name.size() < 22 ? 22 - k.name.size() : 1, ' ')
      // '>' keeps inf and nan right-aligned, as printf wrote them (fmt 9 would not).
      << fmt::format("{:>10.2f} ", k.value) << k.unit
      << std::string(k.unit.size() < 8 ? 8 - k.unit.size() : 1, ' ')
      << "[" << k.status << "] " << k.note << "\n";
}

void write_ops(std::ostream& o, const wire::diagnosis& d) {
  o << "\nTop operations\n";
  int n = 0;
  for (const auto& t : d.top_ops) {
    const auto name = t.name.size() > 70 ? t.name.substr(0, 67) + "..." : t.name;
    o << fmt::format("  {}. ", ++n) << name << " [" << t.category << "]\n"
      << fmt::format("     {:.2f}% of time", 100 * t.time_share)
      << (t.flops_utilization >= 0
              ? fmt::format(", FLOP util {:.1f}%", 100 * t.flops_utilization) : "")
      << (t.hbm_bw_utilization >= 0
              ? fmt::format(", HBM util {:.1f}%", 100 * t.hbm_bw_utilization) : "")
      << (t.bound_by.empty() ? "" : ", bound by " + t.bound_by) << " -> " << t.resource << "\n";
  }
}

void write_proposal(std::ostream& o, const wire::proposal_wire& p) {
  o << "\n" << p.rank << ". " << p.title << "  (confidence "
    << fmt::format("{:.0f}%", 100 * p.confidence) << ")\n";
  if (!p.mesh.empty())
    o << "   mesh: " << p.mesh << "   (" << p.change << ")\n";
  else
    o << "   change: " << p.change << "\n";
  o << fmt::format("   predicted step: {} -> {} (x{:.2f})", human_duration(p.step_ms_before),
                   human_duration(p.step_ms_after), p.speedup)
    << fmt::format(", memory {:.1f} of {:.1f} GiB\n", p.memory_gib_after, p.memory_limit_gib);
  o << "   " << p.metric << fmt::format(": {:.3g} -> {:.3g}\n", p.metric_before, p.metric_after);
  o << "   why: " << p.rationale << "\n";
  for (const auto& t : p.tradeoffs)
    o << "   trade-off: " << t << "\n";
  for (const auto& c : p.citations)
    o << "   cites [" << c.kind << "] " << c.title << fmt::format(" ({:.2f})", c.score) << ": "
      << c.excerpt << "\n";
}

} // namespace

json diagnosis_json(const std::string& experiment, const wire::diagnosis& d,
                    const wire::proposal_set& p) {
  json proposals = json::array();
  for (const auto& x : p.proposals)
    proposals.push_back(proposal_json(x));
  return {{"experiment", experiment},
          {"platform", d.platform},
          {"bottleneck", d.bottleneck},
          {"secondary", d.secondary},
          {"confidence", d.confidence},
          {"summary", d.summary},
          {"step_time_ms", d.measured_step_ms},
          {"kpis", kpis_json(d)},
          {"top_ops", top_ops_json(d)},
          {"time_by_class", d.time_by_class},
          {"scores", d.scores},
          {"evidence", d.evidence},
          {"sources", d.sources},
          {"partial", d.partial},
          {"warnings", d.warnings},
          {"baseline", p.baseline},
          {"model_step_time_ms", p.model_step_ms},
          {"proposals", proposals},
          {"notes", p.notes}};
}

std::string diagnosis_text(const std::string& experiment, const wire::diagnosis& d,
                           const wire::proposal_set& p) {
  std::ostringstream o;
  o << "Diagnosis of " << experiment << (d.partial ? "  [PARTIAL]" : "") << "\n";
  for (const auto& s : d.sources)
    o << "  read " << s << "\n";
  for (const auto& w : d.warnings)
    o << "  warning: " << w << "\n";
  o << "\n";
  write_kpis(o, d);
  write_ops(o, d);
  o << "\nBottleneck: " << d.bottleneck
    << fmt::format(" (confidence {:.0f}%)\n", 100 * d.confidence)
    << "  " << d.summary << "\n";
  for (const auto& e : d.evidence)
    if (e.rfind("top op", 0) != 0)
      o << "  - " << e << "\n";
  o << "\nProposals (current: " << p.baseline << ")\n";
  for (const auto& x : p.proposals)
    write_proposal(o, x);
  if (!p.notes.empty())
    o << "\nNotes\n";
  for (const auto& n : p.notes)
    o << "  - " << n << "\n";
  return o.str();
}

} // namespace paratune::cli
