#include "adapters/maxtext/maxtext_errors.hpp"

#include <array>

#include "adapters/megatron/error_classifier.hpp"
#include "adapters/megatron/text_scan.hpp"
#include "core/tpu/maxtext_rule_table.hpp"

namespace paratune {

namespace {

struct maxtext_phrase {
  log_error_kind kind;
  std::string_view text;
};

// In priority order: XLA wraps a memory failure in a compilation error
// ("XLA:TPU compile permanent error. Ran out of memory in memory space
// hbm"), so memory is read first.
constexpr std::array maxtext_phrases = {
  maxtext_phrase{log_error_kind::oom, "RESOURCE_EXHAUSTED"},
  maxtext_phrase{log_error_kind::oom, "Ran out of memory in memory space hbm"},
  maxtext_phrase{log_error_kind::oom, "Error allocating device buffer"},
  maxtext_phrase{log_error_kind::nan, "Aborting training due to NaN loss"},  // metric_logger.py:298
  maxtext_phrase{log_error_kind::nan, "Aborting training due to Inf loss"},
  // fill_unspecified_mesh_axes' other two asserts (utils/max_utils.py:464, 471).
  maxtext_phrase{log_error_kind::config_invalid, "At most one axis can be unspecified"},
  maxtext_phrase{log_error_kind::config_invalid, "Unspecified value unable to be determined"},
  // A host of the slice did not reach a barrier in time (preempted,
  // restarted, hung): XLA's coordination service, CheckBarrierTimeout in
  // xla/tsl/distributed_runtime/coordination/coordination_service.cc
  // (tensorflow/tensorflow @ 02261c36), raised as DEADLINE_EXCEEDED. The
  // class of a collective that timed out: the run may pass when run again.
  maxtext_phrase{log_error_kind::nccl_timeout, "Barrier timed out. Id:"},
  maxtext_phrase{log_error_kind::config_invalid, "compile permanent error"},
  maxtext_phrase{log_error_kind::config_invalid, "INVALID_ARGUMENT:"},
};

// The fixed text a rule's message starts with, up to its first value.
std::string_view fixed_head(std::string_view message) {
  return message.substr(0, message.find('{'));
}

bool names_a_refusal(std::string_view text) {
  for (const auto& row : maxtext_rule_table()) {
    if (row.effect != maxtext_effect::refuses)
      continue;
    const auto head = fixed_head(row.message);
    if (head.size() >= 12 && scan::contains(text, head))
      return true;
  }
  return false;
}

} // namespace

std::optional<log_error_kind> classify_maxtext_error(std::string_view text) {
  for (const auto& p : maxtext_phrases)
    if (scan::contains(text, p.text))
      return p.kind;
  if (names_a_refusal(text))
    return log_error_kind::config_invalid;
  return classify_error_line(text);
}

} // namespace paratune
