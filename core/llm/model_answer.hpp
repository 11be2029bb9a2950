#pragma once

#include <string>
#include <variant>
#include <vector>

#include "core/llm/guardrail.hpp"
#include "core/trial_outcome.hpp"
#include "core/tuning/tuning_context.hpp"

namespace paratune {

/// A configuration a model proposed (llm mode), on top of the base run.
struct proposed_config {
  training_config config;
  std::string reason;
};

/// A model's ranking of the candidates it was offered (hybrid mode):
/// 0-based indices, best first.
struct proposed_ranking {
  std::vector<int> order;
  std::string reason;
};

/// A model's reading of a failed trial (failure analysis).
struct proposed_failure_reading {
  failure_kind kind = failure_kind::other;
  std::vector<std::string> blamed;  ///< canonical configuration keys
  int confidence = 0;               ///< 0..100
  std::string reason;
};

/// Reads a failure-analysis answer strictly: {"kind": a failure kind's word
/// other than none, "blamed": [canonical keys], "confidence": 0..100,
/// "reason": "..."}.
std::variant<proposed_failure_reading, guardrail_verdict>
read_failure_reading(const std::string& answer);

/// A model's answer in a dialogue about a session (`paratune ask`).
struct proposed_reply {
  std::string text;
  std::vector<int> trials;  ///< the trials it cites
};

/// Reads a dialogue answer strictly: {"answer": "...", "trials": [n, ...]},
/// every cited trial one of the session's 1..`trials_in_session`.
std::variant<proposed_reply, guardrail_verdict> read_dialogue_reply(const std::string& answer,
                                                                    int trials_in_session);

/// Reads an llm-mode answer strictly: one JSON object (a ```json fence
/// around it is tolerated) with "config", an object of canonical keys to
/// values (strings, whole numbers or booleans), and "reason", a string.
/// Keys it leaves out keep `base`'s values. A key outside the search space
/// may only repeat `ctx.initial`'s value; a searched key only take a value
/// of the space.
std::variant<proposed_config, guardrail_verdict>
read_proposed_config(const std::string& answer, const tuning_context& ctx,
                     const training_config& base);

/// Reads a hybrid-mode answer strictly: {"ranking": [n, ...], "reason": "..."}
/// with distinct 1-based numbers of the `offered` candidates.
std::variant<proposed_ranking, guardrail_verdict>
read_proposed_ranking(const std::string& answer, int offered);

} // namespace paratune
