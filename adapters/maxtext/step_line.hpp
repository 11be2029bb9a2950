#pragma once

#include <optional>
#include <string_view>

#include "adapters/maxtext/maxtext_log.hpp"

namespace paratune {

/// Reads MaxText's per-step line (text after the absl prefix), any form
/// maxtext_step lists; nothing for any other line. `line` is its number.
std::optional<maxtext_step> read_step_line(std::string_view text, int64_t line);

} // namespace paratune
