#pragma once

#include <string>
#include <vector>

#include "core/llm/guarded_ask.hpp"
#include "core/reasoner_settings.hpp"
#include "core/tuning/failure_analysis.hpp"
#include "core/tuning/tuning_context.hpp"

namespace paratune {

/// What a failed trial left behind, as the failure analysis reads it.
struct failed_trial {
  int trial = 0;
  training_config config;
  failure_kind error_kind = failure_kind::none; ///< the log parser's classification
  std::string message;                          ///< the first error line
  int exit_code = 0;
  int iterations_logged = 0;                    ///< iterations its log printed before it failed
  std::vector<std::string> log_tail;
};

/// The failure analysis's answer, and the model's part in it.
struct failure_decision {
  failure_verdict verdict;        ///< what the session acts on
  std::vector<llm_turn> turns;    ///< every ask (none when the rules were sure)
  bool from_model = false;        ///< the verdict is the model's reading (llm mode)
};

/// Whether the rules (analyze_failure) ran out: an unknown error, or a
/// reading too unsure to learn from. Only then is a model asked: where
/// the log names the cause (an OOM, a start-up assertion, a watchdog
/// timeout), what was printed beats any model.
bool rules_ran_out(const failure_verdict& rules);

/// The JSON schema of the answer (read_failure_reading).
const nlohmann::json& failure_reading_schema();

/// The Failure Analysis step with a model behind it. The rules decide
/// first; when they ran out and `mode` names a model, it reads the trial's
/// log and the session's history and answers through the guardrails
/// (strict JSON, known kinds and keys, and no reading the trial's own
/// measurements rule out: a run that trained cannot have failed a start-up
/// assertion). llm: an accepted reading becomes the verdict, its retry
/// decided by worth_retrying as for the rules'. hybrid: the rules' verdict
/// stands and the model's reading is added to its summary.
failure_decision analyse_failure_with_llm(reasoner_mode mode, const std::string& prompt_template,
                                          const std::string& job_label,
                                          const tuning_context& ctx,
                                          const std::vector<trial_outcome>& history,
                                          const failed_trial& failed, const chat_fn& chat);

} // namespace paratune
