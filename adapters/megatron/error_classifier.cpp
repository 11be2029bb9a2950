#include "adapters/megatron/error_classifier.hpp"

#include <array>

#include "adapters/megatron/text_scan.hpp"

namespace paratune {

namespace {

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || scan::is_digit(c) || c == '_';
}

template <std::size_t N>
bool contains_any(std::string_view s, const std::array<std::string_view, N>& needles) {
  for (const auto n : needles)
    if (scan::contains(s, n)) return true;
  return false;
}

// Specific texts only: prose that merely mentions memory must not match.
constexpr std::array<std::string_view, 5> oom_phrases = {
  "CUDA out of memory",         // allocator, every PyTorch version
  "CUDA error: out of memory",  // non-allocator (cuBLAS, NCCL init)
  "HIP out of memory",          // ROCm builds
  "XPU out of memory",
  "CUDA_ERROR_OUT_OF_MEMORY",   // driver API
};

constexpr std::array<std::string_view, 4> nccl_phrases = {
  "Watchdog caught collective operation timeout",
  "detected by watchdog",  // 2.4+: "Exception (either an error or timeout) detected by
                           // watchdog", "failure detected by watchdog at work sequence id"
  "watchdog thread terminated with exception",
  "NCCL operations have failed or timed out",
};

constexpr std::array<std::string_view, 4> nan_phrases = {
  "found NaN in",  // rerun state machine, grad-norm checks
  "found Inf in",
  "Spiky loss",
  "NaN or Inf",
};

// Megatron-LM's start-up rule texts (notes/input_formats.md §1.6) and the
// ones core/megatron_rules.cpp reproduces.
constexpr std::array<std::string_view, 9> config_phrases = {
  "is not divisible by",         // world/batch/microbatch/divide()
  "must be a multiple",          // "... must be a multiple (or divisor) of tensor_model_parallel_size"
  "should be a multiple of",     // seq-length vs CP, experts vs EP
  "should be divisible by",      // layers vs PP
  "must be divisible by",        // layers per virtual stage
  "number of microbatches should be at least",
  "must be non None",            // num_experts with EP
  "need pipeline_model_parallel_size",
  "not supported with the interleaved schedule",
};

bool looks_like_warning(std::string_view s) {
  return s.starts_with("WARNING") || s.starts_with("Warning") || scan::contains(s, "Warning:")
         || scan::contains(s, "[W ");
}

bool ends_with_error_word(std::string_view t) {
  return t.ends_with("Error") || t.ends_with("Exception");
}

// argparse rejecting the command line: `pretrain_gpt.py: error: ...`.
bool is_argparse_error(std::string_view s) {
  const std::size_t at = scan::find(s, ".py: error: ");
  return at != std::string_view::npos && s.substr(0, at).find(' ') == std::string_view::npos;
}

// The failure a known message text names, wherever it appears in the line.
std::optional<log_error_kind> signature_kind(std::string_view s) {
  if (contains_any(s, oom_phrases)) return log_error_kind::oom;
  if (contains_any(s, nccl_phrases)) return log_error_kind::nccl_timeout;
  if (contains_any(s, nan_phrases)) return log_error_kind::nan;
  if (contains_any(s, config_phrases) || is_argparse_error(s))
    return log_error_kind::config_invalid;
  return std::nullopt;
}

} // namespace

std::optional<std::string_view> exception_type(std::string_view s) {
  if (s.empty() || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
    return std::nullopt;
  std::size_t i = 0;
  while (i < s.size()) {
    if (is_ident_char(s[i]) || s[i] == '.') ++i;
    else if (s[i] == ':' && i + 2 < s.size() && s[i + 1] == ':' && is_ident_char(s[i + 2])) i += 2;
    else break;
  }
  const std::string_view type = s.substr(0, i);
  if (type.size() < 5 || !ends_with_error_word(type)) return std::nullopt;
  if (i < s.size() && s[i] != ':' && s[i] != ' ') return std::nullopt;
  return type;
}

std::optional<log_error_kind> classify_error_line(std::string_view text) {
  const std::string_view s = scan::trim(text);
  if (s.empty()) return std::nullopt;
  const auto type = exception_type(s);
  if (const auto kind = signature_kind(s)) {
    // Outside an exception line a signature only counts in a line of its
    // own: not in a warning, and not in traceback source (indented) that
    // merely quotes the message an assert would raise.
    if (type || (!text.starts_with("    ") && !looks_like_warning(s))) return kind;
    return std::nullopt;
  }
  if (!type) return std::nullopt;
  if (type->ends_with("OutOfMemoryError")) return log_error_kind::oom;
  if (type->ends_with("AssertionError") || type->ends_with("ValueError"))
    return log_error_kind::config_invalid;
  return log_error_kind::other;
}

bool is_launcher_failure(std::string_view exception) {
  return exception.ends_with("ChildFailedError");
}

} // namespace paratune
