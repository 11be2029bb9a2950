#include "core/llm/diagnosis_decision.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/diagnosis/analyzer.hpp"
#include "core/diagnosis/limiting_factor.hpp"
#include "core/human_units.hpp"
#include "core/llm/answer_object.hpp"
#include "core/llm/prompt_template.hpp"
#include "core/text.hpp"
#include "core/tpu/maxtext_args.hpp"
#include "core/tpu/mesh_model.hpp"

namespace paratune {

namespace {

constexpr int64_t largest_axis = 1 << 20;  ///< as core/value_range's parallel sizes

constexpr std::initializer_list<bottleneck_class> every_bottleneck = {
  bottleneck_class::compute,         bottleneck_class::hbm_bandwidth,
  bottleneck_class::memory_capacity, bottleneck_class::communication,
  bottleneck_class::pipeline_bubble, bottleneck_class::input_host,
  bottleneck_class::unknown};

double score_of(const diagnosis_report& r, bottleneck_class b) {
  const auto s = r.scores.find(to_string(b));
  return s == r.scores.end() ? 0 : s->second;
}

/// "compute 0.62, hbm_bandwidth 0.20, ...", highest first.
std::string scores_text(const diagnosis_report& r) {
  std::vector<std::pair<std::string, double>> all(r.scores.begin(), r.scores.end());
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [name, score] : all)
    parts.push_back(fmt::format("{} {:.2f}", name, score));
  return parts.empty() ? "(none)" : join(parts, ", ");
}

std::string kpis_text(const diagnosis_report& r) {
  std::string out;
  for (const auto& k : r.kpis)
    out += fmt::format("- {}: {:.4g} {} [{}] {}\n", k.name, k.value, k.unit, k.status, k.note);
  return out.empty() ? "(no KPI was read)\n" : out;
}

std::string ops_text(const diagnosis_report& r) {
  std::string out = "| op | category | time share | FLOP util | HBM util | bound by | class |\n"
                    "|---|---|---|---|---|---|---|\n";
  const auto frac = [](double v) {
    return v < 0 ? std::string("-") : fmt::format("{:.1f}%", 100 * v);
  };
  for (const auto& op : r.top_ops)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", op.name.substr(0, 80),
                       op.category, frac(op.time_share), frac(op.flops_utilization),
                       frac(op.hbm_bw_utilization), op.bound_by.empty() ? "-" : op.bound_by,
                       to_string(op.resource));
  if (r.top_ops.empty())
    out += "| (no operations were read) | | | | | | |\n";
  return out;
}

std::string time_by_class_text(const diagnosis_report& r) {
  std::vector<std::string> parts;
  for (const auto& [name, share] : r.time_by_class)
    parts.push_back(fmt::format("{} {:.1f}%", name, 100 * share));
  return parts.empty() ? "(no op profile)" : join(parts, ", ");
}

std::string experiment_text(const experiment_spec& exp) {
  if (exp.platform == device_platform::tpu)
    return fmt::format("{} on TPU {} ({} slice{} of {} chips), mesh {}, global batch {} x {} "
                       "tokens",
                       exp.model.name, to_string(exp.slice), exp.slice.num_slices,
                       exp.slice.num_slices == 1 ? "" : "s", exp.slice.chips_per_slice(),
                       to_string(exp.mesh), exp.workload.global_batch, exp.workload.seq_len);
  return fmt::format("{} on {} GPUs ({}), Megatron-LM {}", exp.model.name, exp.devices(),
                     exp.cluster_ref, canonical_key(exp.megatron));
}

std::string classes_words() {
  std::vector<std::string> words;
  for (auto b : every_bottleneck)
    words.push_back(to_string(b));
  return join(words, ", ");
}

/// One size of a mesh answer, or why it is not one.
std::optional<guardrail_verdict> read_axes(const nlohmann::json& j, const char* field,
                                           tpu_mesh& out) {
  if (!j.is_object() || j.empty())
    return unparsable_answer(std::string("\"") + field + "\" is not an object of axis sizes");
  for (const auto& [name, size] : j.items()) {
    mesh_axis axis;
    if (!parse_mesh_axis(name, axis))
      return guardrail_verdict{guardrail_rejection::unknown_parameter,
                               "'" + name + "' is not a mesh axis (replica, data, fsdp, seq, "
                               "expert, model)"};
    if (!size.is_number_integer() || size.get<int64_t>() < 1 || size.get<int64_t>() > largest_axis)
      return guardrail_verdict{guardrail_rejection::unknown_value,
                               name + ": " + size.dump() + " is not a whole number from 1 to "
                                   + std::to_string(largest_axis)};
    out.set(axis, int(size.get<int64_t>()));
    if (std::find(out.shown.begin(), out.shown.end(), axis) == out.shown.end())
      out.shown.push_back(axis);
  }
  return std::nullopt;
}

void apply_reading(diagnosis_report& r, const proposed_bottleneck& m) {
  const auto before = r.bottleneck;
  r.bottleneck = m.bottleneck;
  // The model cannot be surer than the evidence it read.
  r.confidence = std::min(r.confidence, m.confidence / 100.0);
  r.evidence.push_back(fmt::format("the model read the profile as {} (built-in: {}): {}",
                                   to_string(m.bottleneck), to_string(before), m.reason));
  r.summary = fmt::format("The model's reading: {}: {} (Confidence: {}; checked against the "
                          "class scores {}). ",
                          to_string(m.bottleneck), m.reason, m.confidence, scores_text(r))
              + r.summary;
}

/// The model's mesh as a proposal, predicted, cited and weighed as the
/// built-in ones are; nothing when the screen refuses it (check_mesh ran
/// first, so only a disagreement between the two would).
std::optional<proposal> model_proposal(const proposal_context& ctx, const proposal_set& builtin,
                                       const candidate_pool& pool, const proposed_mesh& m) {
  const auto c = mesh_candidate(*ctx.experiment, *ctx.report, pool, m.ici, m.dcn);
  if (!c)
    return std::nullopt;
  auto out = proposal_of(ctx, pool, *c);
  out.exploratory = out.predicted.speedup < 1;
  out.title = "The model's proposal: " + c->title;
  if (out.exploratory)
    out.title = fmt::format("Exploration, predicted {:.0f}% slower: {}",
                            100 * (1 - out.predicted.speedup), out.title);
  out.rationale = "The model: " + m.reason + " " + c->rationale;
  // Never surer than paratune's own first proposal.
  if (!builtin.proposals.empty())
    out.confidence = std::min(out.confidence, builtin.proposals.front().confidence);
  return out;
}

} // namespace

std::variant<proposed_bottleneck, guardrail_verdict>
read_bottleneck_reading(const std::string& answer) {
  auto parsed = reasoned_object(answer);
  if (auto* bad = std::get_if<guardrail_verdict>(&parsed))
    return *bad;
  const auto& j = std::get<nlohmann::json>(parsed);
  proposed_bottleneck out;
  out.reason = j["reason"].get<std::string>();
  const auto b = j.find("bottleneck");
  if (b == j.end() || !b->is_string())
    return unparsable_answer("the answer has no \"bottleneck\" string");
  if (!parse_bottleneck(b->get<std::string>(), out.bottleneck))
    return guardrail_verdict{guardrail_rejection::unknown_value,
                             "bottleneck '" + b->get<std::string>() + "' is not one of "
                                 + classes_words()};
  const auto c = j.find("confidence");
  if (c == j.end() || !c->is_number_integer() || c->get<int64_t>() < 0 || c->get<int64_t>() > 100)
    return guardrail_verdict{guardrail_rejection::unknown_value,
                             "confidence must be a whole number from 0 to 100"};
  out.confidence = int(c->get<int64_t>());
  return out;
}

std::optional<guardrail_verdict> check_bottleneck(const diagnosis_report& evidence,
                                                  bottleneck_class named) {
  const double floor = analyzer_options{}.min_score;
  if (named == bottleneck_class::unknown) {
    if (evidence.bottleneck == bottleneck_class::unknown)
      return std::nullopt;
    return guardrail_verdict{guardrail_rejection::contradicts_measurement,
                             fmt::format("the profile does say what limits the step: {} scores "
                                         "{:.2f}, at or above the {:.2f} a bottleneck needs "
                                         "(scores: {})",
                                         to_string(evidence.bottleneck),
                                         score_of(evidence, evidence.bottleneck), floor,
                                         scores_text(evidence))};
  }
  const double score = score_of(evidence, named);
  if (score >= floor)
    return std::nullopt;
  return guardrail_verdict{guardrail_rejection::contradicts_measurement,
                           fmt::format("the profile's numbers give {} a score of {:.2f}, below "
                                       "the {:.2f} a bottleneck needs (scores: {}; op time by "
                                       "class: {})",
                                       to_string(named), score, floor, scores_text(evidence),
                                       time_by_class_text(evidence))};
}

std::variant<proposed_mesh, guardrail_verdict> read_proposed_mesh(const std::string& answer) {
  auto parsed = reasoned_object(answer);
  if (auto* bad = std::get_if<guardrail_verdict>(&parsed))
    return *bad;
  const auto& j = std::get<nlohmann::json>(parsed);
  proposed_mesh out;
  out.reason = j["reason"].get<std::string>();
  const auto mesh = j.find("mesh");
  if (mesh == j.end())
    return unparsable_answer("the answer has no \"mesh\" object");
  if (auto bad = read_axes(*mesh, "mesh", out.ici))
    return *bad;
  if (const auto dcn = j.find("dcn_mesh"); dcn != j.end() && !dcn->is_null())
    if (auto bad = read_axes(*dcn, "dcn_mesh", out.dcn))
      return *bad;
  return out;
}

std::optional<guardrail_verdict> check_mesh(const experiment_spec& exp, const proposed_mesh& m,
                                            double memory_correction) {
  const auto& slice = exp.slice;
  // MaxText's own checks first, in its words: a product that is not the
  // slice's chips is its ici_product assertion.
  // The slices are the hardware's, as MaxText reads them (not the DCN
  // mesh's product, which is what is being checked).
  const maxtext_launch launch{exp.model, m.ici, m.dcn, exp.workload, slice.chips()};
  const auto findings = check_maxtext_overrides(
    render_maxtext_args(launch),
    {slice.chips_per_slice(), slice.num_slices, exp.workload.global_batch});
  if (!findings.empty()) {
    std::vector<std::string> said;
    for (const auto& f : findings)
      said.push_back(fmt::format("MaxText {} it ({}): {}", f.refuses() ? "refuses" : "changes",
                                 f.row().id, f.printed()));
    return guardrail_verdict{guardrail_rejection::maxtext_rule, join(said, "; ")};
  }
  // What MaxText lets pass but the job cannot be: axes across slices on
  // one slice (MaxText checks the DCN product only with several).
  if (m.ici.chips() != slice.chips_per_slice())
    return guardrail_verdict{guardrail_rejection::mesh_size,
                             fmt::format("mesh {} spans {} chips; each slice of {} has {}",
                                         to_string(m.ici), m.ici.chips(), to_string(slice),
                                         slice.chips_per_slice())};
  if (m.dcn.chips() != slice.num_slices)
    return guardrail_verdict{guardrail_rejection::mesh_size,
                             fmt::format("dcn_mesh {} spans {} slices; the job has {}",
                                         to_string(m.dcn), m.dcn.chips(), slice.num_slices)};
  if (m.ici == exp.mesh && m.dcn == exp.dcn_mesh)
    return guardrail_verdict{guardrail_rejection::repeat,
                             "mesh " + to_string(m.ici) + " is the current mesh"};
  auto p = predict_mesh(exp.model, exp.cluster, slice, m.ici, m.dcn, exp.workload);
  if (!p.valid())
    return guardrail_verdict{guardrail_rejection::unknown_value,
                             "mesh " + to_string(m.ici) + " cannot run this experiment: "
                                 + join(p.problems, "; ")};
  const double gib = p.memory.total_gib * memory_correction;
  if (gib > p.memory.limit_gib)
    return guardrail_verdict{guardrail_rejection::memory,
                             fmt::format("mesh {} needs {:.1f} GiB per chip (the profile's "
                                         "correction x{:.2f} included), over the {:.1f} GiB "
                                         "usable",
                                         to_string(m.ici), gib, memory_correction,
                                         p.memory.limit_gib)};
  return std::nullopt;
}

const nlohmann::json& bottleneck_reading_schema() {
  static const nlohmann::json schema = {
    {"type", "object"},
    {"properties",
     {{"bottleneck", {{"type", "string"}}},
      {"confidence", {{"type", "integer"}}},
      {"reason", {{"type", "string"}}}}},
    {"required", {"bottleneck", "confidence", "reason"}},
    {"additionalProperties", false}};
  return schema;
}

const nlohmann::json& mesh_proposal_schema() {
  static const nlohmann::json axes = {{"type", "object"},
                                      {"additionalProperties", {{"type", "integer"}}}};
  static const nlohmann::json schema = {
    {"type", "object"},
    {"properties", {{"mesh", axes}, {"dcn_mesh", axes}, {"reason", {{"type", "string"}}}}},
    {"required", {"mesh", "reason"}},
    {"additionalProperties", false}};
  return schema;
}

analyzer_decision read_profile_with_llm(reasoner_mode mode, const std::string& prompt_template,
                                        const experiment_spec& exp,
                                        const diagnosis_report& builtin, const chat_fn& chat) {
  analyzer_decision d{builtin, {}, false, {}};
  if (mode == reasoner_mode::builtin)
    return d;
  auto messages = render_prompt(prompt_template,
                                {{"experiment", experiment_text(exp)},
                                 {"kpis", kpis_text(builtin)},
                                 {"ops", ops_text(builtin)},
                                 {"time_by_class", time_by_class_text(builtin)},
                                 {"scores", scores_text(builtin)},
                                 {"classes", classes_words()},
                                 {"builtin", fmt::format("{} (confidence {:.0f}%)",
                                                         to_string(builtin.bottleneck),
                                                         100 * builtin.confidence)}});
  auto answer = ask_with_guardrails<proposed_bottleneck>(
    std::move(messages), bottleneck_reading_schema(), chat,
    read_then_check<proposed_bottleneck>(read_bottleneck_reading,
                                         [&](const proposed_bottleneck& reading) {
                                           return check_bottleneck(builtin, reading.bottleneck);
                                         }));
  d.turns = std::move(answer.turns);
  if (!answer.accepted) {
    d.fallback = answer.fallback;
    d.report.summary += " Model: " + answer.fallback + "; the built-in reading stands.";
    return d;
  }
  apply_reading(d.report, *answer.accepted);
  d.from_model = true;
  return d;
}

proposal_decision propose_with_llm(reasoner_mode mode, const std::string& prompt_template,
                                   const proposal_context& ctx, proposal_set builtin,
                                   const chat_fn& chat) {
  proposal_decision d{std::move(builtin), {}, false, {}};
  if (mode == reasoner_mode::builtin)
    return d;
  const auto& exp = *ctx.experiment;
  if (exp.platform != device_platform::tpu) {
    d.fallback = "the model proposes TPU meshes only";
    d.set.notes.push_back("Model: not asked (it proposes TPU meshes only); the built-in "
                          "proposals stand.");
    return d;
  }
  const auto pool = mesh_candidates(exp, *ctx.report, baseline_evidence_of(ctx));
  std::string offered;
  for (const auto& p : d.set.proposals)
    offered += fmt::format("{}. {} (predicted x{:.2f}, {:.1f} GiB per chip)\n", p.rank,
                           p.mesh ? to_string(*p.mesh) : p.change, p.predicted.speedup,
                           p.predicted.memory_gib_after);
  auto messages = render_prompt(
    prompt_template,
    {{"experiment", experiment_text(exp)},
     {"chips_per_slice", std::to_string(exp.slice.chips_per_slice())},
     {"slices", std::to_string(exp.slice.num_slices)},
     {"mesh", to_string(exp.mesh)},
     {"bottleneck", fmt::format("{} (confidence {:.0f}%)", to_string(ctx.report->bottleneck),
                                100 * ctx.report->confidence)},
     {"summary", ctx.report->summary},
     {"builtin", offered.empty() ? "(none)\n" : offered},
     {"step", ctx.measured_step_ms > 0 ? human_duration(ctx.measured_step_ms) : "not measured"}});
  auto answer = ask_with_guardrails<proposed_mesh>(
    std::move(messages), mesh_proposal_schema(), chat,
    read_then_check<proposed_mesh>(read_proposed_mesh, [&](const proposed_mesh& m) {
      return check_mesh(exp, m, pool.memory_correction);
    }));
  d.turns = std::move(answer.turns);
  if (!answer.accepted) {
    d.fallback = answer.fallback;
    d.set.notes.push_back("Model: " + answer.fallback + "; the built-in proposals stand.");
    return d;
  }
  auto made = model_proposal(ctx, d.set, pool, *answer.accepted);
  if (!made) {
    d.fallback = "the model's mesh did not pass the candidates' screen";
    d.set.notes.push_back("Model: " + d.fallback + "; the built-in proposals stand.");
    return d;
  }
  auto mine = std::move(*made);
  std::vector<proposal> ranked{mine};
  for (auto& p : d.set.proposals)
    if (!(p.mesh && *p.mesh == *mine.mesh) && ranked.size() < ctx.count)
      ranked.push_back(std::move(p));
  for (size_t i = 0; i < ranked.size(); ++i)
    ranked[i].rank = int(i) + 1;
  rank_confidence(ranked);
  d.set.proposals = std::move(ranked);
  d.set.notes.push_back("Model: proposed " + to_string(mine.mesh.value()) + " (accepted: the "
                        "slice's chips, MaxText's rules, the experiment's limits and memory "
                        "checked); it goes first.");
  d.from_model = true;
  return d;
}

} // namespace paratune
