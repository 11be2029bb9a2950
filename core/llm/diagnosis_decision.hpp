#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/diagnosis/proposal_engine.hpp"
#include "core/llm/guarded_ask.hpp"
#include "core/reasoner_settings.hpp"

namespace paratune {

/// A model's reading of a profile (the Analyzer's turn).
struct proposed_bottleneck {
  bottleneck_class bottleneck = bottleneck_class::unknown;
  int confidence = 0;  ///< 0..100
  std::string reason;
};

/// Reads an Analyzer answer strictly: {"bottleneck": a class's word,
/// "confidence": 0..100, "reason": "..."}.
std::variant<proposed_bottleneck, guardrail_verdict>
read_bottleneck_reading(const std::string& answer);

/// The profile's numbers against a reading: a class the evidence scores
/// below the Analyzer's floor (analyzer_options::min_score) is refused as
/// contradicts_measurement, with the scores in words; `unknown` only when
/// no class reaches the floor. Nothing when the numbers allow it.
std::optional<guardrail_verdict> check_bottleneck(const diagnosis_report& evidence,
                                                  bottleneck_class named);

/// A mesh a model proposed (the Proposal agent's turn).
struct proposed_mesh {
  tpu_mesh ici;
  tpu_mesh dcn;  ///< all ones unless the answer names axes across slices
  std::string reason;
};

/// Reads a Proposal answer strictly: {"mesh": {"AXIS": N, ...},
/// "dcn_mesh": {...} (optional), "reason": "..."}, every axis one
/// parse_mesh_axis knows, every size a whole number from 1 to 2^20.
std::variant<proposed_mesh, guardrail_verdict> read_proposed_mesh(const std::string& answer);

/// The experiment's rules on a proposed mesh, in this order: MaxText's rule
/// table (maxtext_rule, the row's id and MaxText's message: an ICI product
/// that is not the chips per slice is its ici_product assertion), the
/// products MaxText lets pass (mesh_size: a DCN mesh on one slice), the
/// current mesh again (repeat), the mesh model's other limits
/// (unknown_value: batch, heads, experts that do not divide), and the
/// memory screen with the profile's correction (memory).
std::optional<guardrail_verdict> check_mesh(const experiment_spec& exp, const proposed_mesh& m,
                                            double memory_correction);

/// The JSON schemas of the two answers.
const nlohmann::json& bottleneck_reading_schema();
const nlohmann::json& mesh_proposal_schema();

/// The Analyzer's answer with a model behind it.
struct analyzer_decision {
  diagnosis_report report;       ///< what the session acts on
  std::vector<llm_turn> turns;   ///< every ask (none under builtin)
  bool from_model = false;       ///< the bottleneck is the model's reading
  std::string fallback;          ///< why the built-in reading stands; empty when it does not
};

/// The Analyzer's turn: the built-in report decides first; under llm the
/// model reads the same KPIs, top operations and class scores and names
/// the bottleneck through the guardrails (strict JSON, a known class, and
/// one the profile's numbers allow). An accepted reading replaces the
/// class (its confidence never above the evidence's) and says so in the
/// summary; otherwise the built-in reading stands and the summary says why.
analyzer_decision read_profile_with_llm(reasoner_mode mode, const std::string& prompt_template,
                                        const experiment_spec& exp,
                                        const diagnosis_report& builtin, const chat_fn& chat);

/// The Proposal agent's answer with a model behind it.
struct proposal_decision {
  proposal_set set;
  std::vector<llm_turn> turns;
  bool from_model = false;       ///< the first proposal is the model's
  std::string fallback;
};

/// The Proposal agent's turn: the built-in proposals first; under llm, on
/// a TPU experiment, the model proposes one mesh, which check_mesh screens
/// as the built-in candidates are screened. An accepted mesh is predicted
/// with the mesh model, scaled to the measured step, and goes first (an
/// exploration when predicted slower), the built-in ones after it, `count`
/// in all; its confidence is never above the built-in first's. A GPU
/// experiment is not put to the model (its proposals are Megatron-LM
/// configurations the strategy agents already cover); a note says so.
proposal_decision propose_with_llm(reasoner_mode mode, const std::string& prompt_template,
                                   const proposal_context& ctx, proposal_set builtin,
                                   const chat_fn& chat);

} // namespace paratune
