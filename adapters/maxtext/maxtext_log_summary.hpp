#pragma once

#include <ostream>

#include "adapters/maxtext/maxtext_log.hpp"

namespace paratune {

/// A readable summary of a parsed MaxText log (what `paratune parse-log`
/// prints without --json): every step with its time, TFLOP/s and tokens
/// per device and how it is scored, the scored means, and the errors.
void write_summary(std::ostream& out, const maxtext_log& log);

} // namespace paratune
