#pragma once

#include <string_view>

namespace paratune {

/// Removes absl's log prefix, `I1127 12:00:00.123456 140371 train.py:123] `
/// (severity letter, month and day, time to microseconds, thread id, file
/// and line), which max_logging.log (absl logging.info) puts before every
/// MaxText line. A line without one is returned as it is.
std::string_view strip_absl_prefix(std::string_view line);

} // namespace paratune
