#pragma once

#include <optional>
#include <string>

#include "core/tuning/safety_guards.hpp"

namespace paratune {

/// Why a model's answer was not used. Every answer is checked before a
/// trial could run it; a refusal is stored with its reason and counted.
enum class guardrail_rejection {
  unparsable,         ///< not the JSON the prompt asked for
  unknown_parameter,  ///< names a key that is not a configuration key
  unknown_value,      ///< a value outside the search space, or a fixed key changed
  repeat,             ///< a configuration tried before or running now
  megatron_rule,      ///< breaks a Megatron-LM start-up rule
  known_failure,      ///< walks into a failure the session already saw
  memory,             ///< the memory screen says it cannot fit
  not_a_candidate,    ///< hybrid: a ranking that names no offered candidate
  contradicts_measurement, ///< a reading the trial's own measurements rule out
  mesh_size,          ///< a TPU mesh whose product is not the slice's chips (or slices)
  maxtext_rule,       ///< a TPU mesh MaxText refuses, or would run as another one
};

/// "unparsable", "unknown_parameter", ...: the stored and reported forms.
const char* to_string(guardrail_rejection r);
bool parse_guardrail_rejection(const std::string& text, guardrail_rejection& out);

struct guardrail_verdict {
  guardrail_rejection reason = guardrail_rejection::unparsable;
  std::string detail;  ///< in words, for the model's second try and the report
};

/// The session's guards (Megatron rules and the search space, duplicates
/// and running trials, known failures, memory) on a configuration a model
/// proposed; nothing when it may run.
std::optional<guardrail_verdict> check_guardrails(const safety_guards& guards,
                                                  const training_config& c,
                                                  const perf_prediction& p);

} // namespace paratune
