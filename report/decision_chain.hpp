#pragma once

#include <string>
#include <vector>

#include "core/early_stop_policy.hpp"
#include "core/trial_outcome.hpp"
#include "ledger/session_ledger.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// One link of a session's decision chain: why a trial was chosen, what
/// happened when it ran, and for a failure what the failure analyst made
/// of it. Every text is the pool's, unescaped.
struct decision {
  int trial = 0;
  // Why it was chosen (its proposal; a skipped initial run has none).
  bool proposed = false;
  std::string health;          ///< the health state the analysis saw
  std::string change;
  std::string why;
  std::string reasoning;       ///< the analysis's reasoning in words
  double predicted_tflops = 0; ///< 0: no prediction
  int retry_of = 0;
  std::string pool;
  // What happened (its trial_result; absent while it still ran).
  bool finished = false;
  trial_status status = trial_status::failed;
  double tflops_per_gpu = 0;
  double mfu = 0;
  double peak_memory_mib = 0;
  stop_reason stop = stop_reason::none;
  std::string outcome;         ///< the result's reason: why stopped, skipped or failed
  // The failure analyst's diagnosis of a failed trial.
  bool diagnosed = false;
  failure_kind failure = failure_kind::none;
  int confidence = 0;
  std::string diagnosis;
};

/// The chain of a GPU session, in trial order.
std::vector<decision> decision_chain(const session_ledger& ledger);
/// The same from the session's records; throws wire::decode_error for a
/// record that does not decode.
std::vector<decision> decision_chain(const std::vector<wire::envelope>& history);

} // namespace paratune
