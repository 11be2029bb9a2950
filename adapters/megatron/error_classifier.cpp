#include "adapters/megatron/error_classifier.hpp"

#include <array>
#include <vector>

#include "adapters/megatron/bigram_filter.hpp"
#include "adapters/megatron/text_scan.hpp"
#include "core/megatron_rule_table.hpp"

namespace paratune {

namespace {

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || scan::is_digit(c) || c == '_';
}

struct phrase {
  log_error_kind kind;
  std::string_view text;
  bigram_filter::signature sig;
};

constexpr phrase make(log_error_kind kind, std::string_view text) {
  return {kind, text, bigram_filter::signature_of(text)};
}

using k = log_error_kind;

// In priority order: a line that names two failures gets the first kind.
constexpr std::array phrases = {
  // Specific texts only: prose that merely mentions memory must not match.
  make(k::oom, "CUDA out of memory"),         // allocator, every PyTorch version
  make(k::oom, "CUDA error: out of memory"),  // non-allocator (cuBLAS, NCCL init)
  make(k::oom, "HIP out of memory"),          // ROCm builds
  make(k::oom, "XPU out of memory"),
  make(k::oom, "CUDA_ERROR_OUT_OF_MEMORY"),   // driver API
  // ProcessGroupNCCL watchdog, every PyTorch generation (§2).
  make(k::nccl_timeout, "Watchdog caught collective operation timeout"),
  make(k::nccl_timeout, "detected by watchdog"),  // 2.4+: "Exception (either an error or
                                                  // timeout) detected by watchdog", "failure ..."
  make(k::nccl_timeout, "watchdog thread terminated with exception"),
  make(k::nccl_timeout, "NCCL operations have failed or timed out"),
  // Rerun state machine and grad-norm checks.
  make(k::nan, "found NaN in"),
  make(k::nan, "found Inf in"),
  make(k::nan, "Spiky loss"),
  make(k::nan, "NaN or Inf"),
  // Megatron-LM's start-up rule texts (notes/input_formats.md §1.6) and the
  // ones core/megatron_rules.cpp reproduces.
  make(k::config_invalid, "is not divisible by"),      // world/batch/microbatch/divide()
  make(k::config_invalid, "must be a multiple"),       // "... a multiple (or divisor) of tp"
  make(k::config_invalid, "should be a multiple of"),  // seq-length vs CP, experts vs EP
  make(k::config_invalid, "should be divisible by"),   // layers vs PP
  make(k::config_invalid, "must be divisible by"),     // layers per virtual stage
  make(k::config_invalid, "number of microbatches should be at least"),
  make(k::config_invalid, "must be non None"),         // num_experts with EP
  make(k::config_invalid, "need pipeline_model_parallel_size"),
  make(k::config_invalid, "not supported with the interleaved schedule"),
};

constexpr std::string_view argparse_marker = ".py: error: ";
constexpr auto argparse_sig = bigram_filter::signature_of(argparse_marker);

bool looks_like_warning(std::string_view s) {
  return s.starts_with("WARNING") || s.starts_with("Warning") || scan::contains(s, "Warning:")
         || scan::contains(s, "[W ");
}

bool ends_with_error_word(std::string_view t) {
  return t.ends_with("Error") || t.ends_with("Exception");
}

// argparse rejecting the command line: `pretrain_gpt.py: error: ...`.
bool is_argparse_error(std::string_view s) {
  const std::size_t at = scan::find(s, argparse_marker);
  return at != std::string_view::npos && s.substr(0, at).find(' ') == std::string_view::npos;
}

// The failure a known message text names, wherever it appears in the line.
std::optional<log_error_kind> signature_kind(std::string_view s) {
  const bigram_filter filter(s);
  for (const auto& p : phrases)
    if (filter.may_contain(p.sig) && scan::contains(s, p.text)) return p.kind;
  if (filter.may_contain(argparse_sig) && is_argparse_error(s)) return k::config_invalid;
  return std::nullopt;
}

// The longest fixed piece of each rule table message (the text between its
// placeholders): a RuntimeError carrying one is a start-up refusal too, such
// as the interleaved schedule's micro-batch remainder, whose words name no
// phrase above.
const std::vector<std::string_view>& rule_message_pieces() {
  static const std::vector<std::string_view> pieces = [] {
    std::vector<std::string_view> out;
    for (const auto& row : megatron_rule_table()) {
      std::string_view best;
      std::string_view rest = row.message;
      while (!rest.empty()) {
        const auto open = rest.find('{');
        const std::string_view piece = rest.substr(0, open);
        if (piece.size() > best.size())
          best = piece;
        if (open == std::string_view::npos)
          break;
        const auto close = rest.find('}', open);
        rest = close == std::string_view::npos ? std::string_view() : rest.substr(close + 1);
      }
      if (best.size() >= 24)
        out.push_back(best);
    }
    return out;
  }();
  return pieces;
}

bool names_a_rule_of_the_table(std::string_view s) {
  for (const auto piece : rule_message_pieces())
    if (scan::contains(s, piece))
      return true;
  return false;
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
  // `Type: message`, a bare `Type`, or `Type (detail)`; not prose such as
  // Python's harmless "Exception ignored in: <function ...>".
  const std::string_view rest = s.substr(i);
  if (!rest.empty() && rest[0] != ':' && !rest.starts_with(" (")) return std::nullopt;
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
  if (type->ends_with("RuntimeError") && names_a_rule_of_the_table(s))
    return log_error_kind::config_invalid;
  return log_error_kind::other;
}

bool is_launcher_failure(std::string_view exception) {
  return exception.ends_with("ChildFailedError");
}

} // namespace paratune
