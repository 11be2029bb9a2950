#pragma once

#include <optional>
#include <string_view>

#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

/// Which `--timing-log-option` a timer block header announces.
enum class timer_block { min_max, max_only, all_ranks };

/// `(min, max) time across ranks (ms):`, `max time across ranks (ms):` or
/// `times across ranks (ms):` (text trimmed, prefixes removed).
std::optional<timer_block> parse_timer_header(std::string_view trimmed);

/// A min/max or max block entry, name padded with dots to 48 characters:
///   `    forward-backward ...............................: (123.45, 130.00)`
///   `    forward-backward ...............................: 130.00`
/// The dot padding is required so that other indented `name: value` lines
/// (dataset sizes, for instance) are not taken for timers.
bool parse_timer_entry(std::string_view text, timer_value& out);

/// The `all` option prints `  forward-backward:` then one line per rank,
/// `     rank  0: 123.45`. Returns the timer name of the first form.
std::optional<std::string_view> parse_all_ranks_name(std::string_view text);
/// The per-rank line of the `all` option; returns the time.
std::optional<double> parse_all_ranks_time(std::string_view text);

/// Pre-core (2021) one-line form: `time (ms) | forward-compute: 53.79 | ...`.
/// Fills `out.timers` (max_ms only); returns false for other text.
bool parse_one_line_timers(std::string_view trimmed, timer_report& out);

} // namespace paratune
