#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/job_spec.hpp"
#include "core/megatron_rules.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// The first key of `c` (canonical order) that `search` does not allow, as
/// "key=value": a searched key must take one of its listed values, a key
/// the search leaves alone must keep `initial`'s value. None when `c` lies
/// inside the search space.
std::optional<std::string> outside_search_space(
  const std::map<std::string, std::vector<std::string>>& search, const training_config& initial,
  const training_config& c);

/// Megatron-LM's refusals as one text: `what` ("initial", "--config"),
/// then one line per broken rule, "[rule id] Megatron-LM's message".
std::string rules_refusal_text(const std::string& what, int world_size,
                               const std::vector<rule_violation>& broken);

/// Why the job's initial configuration cannot start the session, or none:
/// Megatron-LM's rules refuse it (every rule it breaks, in Megatron-LM's
/// own words), or, when trial 1 runs it (`start: initial`), it lies outside
/// the job's search space. Checked before a session is stored, so that a
/// job that could only record a skipped first trial is bad input instead.
/// A memory verdict is not a refusal: the memory screen's risk is a
/// prediction, and the session records such a trial as skipped.
std::optional<std::string> initial_refusal(const job_spec& job);

} // namespace paratune
