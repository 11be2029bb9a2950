#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

/// Replaces every occurrence of a secret's value (an API key, a Slurm JWT)
/// in a text with "[redacted]": what a trial printed, a log line, a report.
/// Values shorter than `min_length` are ignored, so a secret that happens
/// to be "1" or "true" does not blank every number and word of a log.
class secret_redactor {
public:
  static constexpr std::size_t min_length = 8;
  static constexpr std::string_view mark = "[redacted]";

  secret_redactor() = default;
  /// The values to hide; duplicates and short ones are dropped.
  explicit secret_redactor(std::vector<std::string> values);

  /// `text` with each secret value replaced, scanning left to right; where
  /// two values start at the same place the longer one is replaced (a key
  /// that extends another is hidden whole).
  std::string redact(std::string_view text) const;
  /// Whether redact() can change anything (no values: a text is kept).
  bool empty() const { return values_.empty(); }
  std::size_t size() const { return values_.size(); }

private:
  std::vector<std::string> values_; ///< longest first
};

} // namespace paratune
