#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

// Prometheus' text exposition format (version 0.0.4), what dcgm-exporter and
// every Prometheus exporter serve on /metrics:
//
//   # HELP name text
//   # TYPE name gauge
//   name{label="value",...} 1.5e3 [timestamp_ms]
//
// Strict about what it accepts (names, quoting, the three label escapes,
// one number, an optional integer timestamp, nothing after it) and tolerant
// about what it ignores (comments, blank lines, metrics nobody asked for).
// A line that breaks the grammar is counted and skipped with its line
// number; the parse never throws and never reads past its limits.

struct prometheus_label {
  std::string name, value;
  bool operator==(const prometheus_label&) const = default;
};

struct prometheus_sample {
  std::string metric;
  std::vector<prometheus_label> labels;
  double value = 0;                     ///< NaN and +/-Inf as the text says
  std::optional<int64_t> timestamp_ms;  ///< when the exporter printed one
  std::size_t line = 0;                 ///< 1-based

  /// The label's value, or nullptr when the sample has no such label.
  const std::string* label(std::string_view name) const;
};

/// A line that does not follow the grammar, and why.
struct prometheus_malformed_line {
  std::size_t line = 0;
  std::string why;
};

struct prometheus_limits {
  std::size_t max_bytes = std::size_t{16} << 20;  ///< text past this is not read
  std::size_t max_line_bytes = 64 * 1024;         ///< a longer line is malformed
  std::size_t max_samples = 100000;               ///< samples kept; the rest counted as dropped
  std::size_t max_labels = 64;                    ///< labels on one sample
  std::size_t max_reported = 20;                  ///< malformed lines kept with their reason
};

struct prometheus_parse {
  std::vector<prometheus_sample> samples;
  /// The first max_reported malformed lines; malformed_lines counts them all.
  std::vector<prometheus_malformed_line> malformed;
  std::size_t malformed_lines = 0;
  std::size_t comment_lines = 0;
  std::size_t skipped_samples = 0;  ///< well-formed, but not wanted or past max_samples
  bool truncated = false;           ///< the text was longer than max_bytes
};

/// Which metrics to keep (a scrape of hundreds of series may want four);
/// empty: every metric.
using prometheus_metric_filter = std::vector<std::string_view>;

/// Parses `text`. Lines end at '\n' (a '\r' before it is dropped).
prometheus_parse parse_prometheus_text(std::string_view text, const prometheus_limits& limits = {},
                                       const prometheus_metric_filter& wanted = {});

} // namespace paratune
