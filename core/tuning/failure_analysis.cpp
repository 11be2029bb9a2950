#include "core/tuning/failure_analysis.hpp"

#include <algorithm>

#include "core/clipped_lines.hpp"
#include "core/tuning/tuning_context.hpp"

namespace paratune {

namespace {

bool has(const std::string& text, const char* needle) {
  return text.find(needle) != std::string::npos;
}

std::string values_of(const training_config& c, const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys)
    out += (out.empty() ? "" : " and ") + display_name(k) + " " + get_value(c, k);
  return out;
}

/// Which parameters a Megatron start-up assertion names.
std::vector<std::string> blamed_by_assertion(const std::string& m) {
  std::vector<std::string> keys;
  auto add = [&](const char* k) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      keys.push_back(k);
  };
  if (has(m, "tensor_model_parallel_size") || has(m, "tensor model parallel")) add("tp");
  if (has(m, "total_model_size") || has(m, "pipeline parallel size")) { add("tp"); add("pp"); add("cp"); }
  if (has(m, "micro batch size")) add("mbs");
  if (has(m, "pipeline-model-parallel") || has(m, "pipeline stage")) add("pp");
  if (has(m, "first") && has(m, "last")) { add("first_pp_layers"); add("last_pp_layers"); }
  if (has(m, "virtual pipeline")) add("vpp");
  if (has(m, "context-parallel")) add("cp");
  if (has(m, "expert")) add("ep");
  if (has(m, "sequence parallelism")) add("sp");
  if (has(m, "overlap-param-gather")) { add("overlap_param"); add("overlap_grad"); add("dist_opt"); }
  if (has(m, "recompute")) { add("recompute"); add("recompute_layers"); }
  return keys;
}

std::string with_confidence(std::string text, int confidence) {
  return text + " (Confidence: " + std::to_string(confidence) + ")";
}

/// What Slurm and the launchers print when the node, not the job, failed.
bool node_lost(const std::string& m) {
  return has(m, "NODE_FAIL") || has(m, "DUE TO NODE FAILURE") || has(m, "Node failure")
         || has(m, "BOOT_FAIL") || has(m, "remote process exited") || has(m, "network error")
         || has(m, "Connection reset");
}

/// A job that never reached training: refused or lost by the scheduler, or
/// a command that could not be started.
bool launcher_failed(failure_kind error_kind, const std::string& m, int exit_code) {
  return error_kind == failure_kind::launcher_error || exit_code == 126 || exit_code == 127
         || has(m, "slurm: the job was not submitted") || has(m, "launch failed");
}

constexpr int confident = 50; ///< below this a diagnosis teaches nothing

} // namespace

bool worth_retrying(failure_kind kind, int confidence, bool parameters_blamed) {
  if (parameters_blamed)
    return false;
  return kind == failure_kind::nccl_timeout || kind == failure_kind::node_failure
         || kind == failure_kind::launcher_error || confidence < confident;
}

failure_verdict analyze_failure(failure_kind error_kind, const std::string& message,
                                const training_config& c, int exit_code) {
  failure_verdict v;
  if (error_kind == failure_kind::oom || has(message, "out of memory")) {
    v.kind = failure_kind::oom;
    v.blamed = {"mbs", "recompute"};
    v.confidence = 92;
    v.summary = with_confidence(values_of(c, {"mbs"}) + " with " + values_of(c, {"recompute"})
                                  + " caused CUDA OutOfMemoryError", v.confidence);
  } else if (error_kind == failure_kind::config_invalid) {
    v.kind = failure_kind::config_invalid;
    v.blamed = blamed_by_assertion(message);
    v.confidence = v.blamed.empty() ? 60 : 95;
    v.summary = with_confidence((v.blamed.empty() ? std::string("The configuration")
                                                  : values_of(c, v.blamed))
                                  + " caused a start-up assertion: " + message,
                                v.confidence);
  } else if (error_kind == failure_kind::nccl_timeout) {
    // A timeout is a symptom: with a valid configuration that started and
    // ran iterations, a hung collective points at the fabric or a peer.
    v.kind = failure_kind::nccl_timeout;
    v.confidence = 70;
    v.summary = with_confidence("NCCL watchdog timeout. No parameter issue. RETRY", v.confidence);
  } else if (launcher_failed(error_kind, message, exit_code)) {
    v.kind = failure_kind::launcher_error;
    v.confidence = 90;
    v.summary = with_confidence("The job never reached training ("
                                  + (message.empty() ? "exit status " + std::to_string(exit_code)
                                                     : clipped_lines(message, 400))
                                  + "). No parameter issue. RETRY on another pool",
                                v.confidence);
  } else if (node_lost(message)) {
    v.kind = failure_kind::node_failure;
    v.confidence = 75;
    v.summary = with_confidence("A peer process or node was lost. No parameter issue. RETRY",
                                v.confidence);
  } else if (error_kind == failure_kind::nan) {
    v.kind = failure_kind::nan;
    v.confidence = 40;
    v.summary = with_confidence("NaN loss. Potential underlying issue", v.confidence);
  } else {
    v.kind = failure_kind::other;
    v.confidence = 10;
    v.summary = with_confidence((message.empty() ? "Exit status " + std::to_string(exit_code)
                                                 : clipped_lines(message, 240))
                                  + ". Unknown error",
                                v.confidence);
  }
  v.retry = worth_retrying(v.kind, v.confidence, !v.blamed.empty());
  return v;
}

} // namespace paratune
