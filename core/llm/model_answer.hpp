#pragma once

#include <string>
#include <variant>
#include <vector>

#include "core/llm/guardrail.hpp"
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
