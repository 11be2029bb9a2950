#pragma once

// How `plan` and `tune --dry-run` show the ranked layouts of a space.

#include <iosfwd>

#include "core/tuning/space_planner.hpp"

namespace paratune::cli {

/// The ranked table: one row per layout's best variant, with the keys
/// worth a column (tp, pp, cp/ep/vpp when varied or set, mbs, recompute),
/// its other flags, variants, tokens/s, TFLOP/s, MFU, peak MiB, the memory
/// verdict and the limiting factor.
void write_plan_table(std::ostream& out, const plan_request& r, const plan_result& res);

} // namespace paratune::cli
