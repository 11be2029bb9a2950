#pragma once

#include "core/training_config.hpp"

namespace paratune {

/// Whether `c` runs `than`'s split with only more work per iteration:
/// more recomputation (none < selective < full, any method and layer
/// count once the mode is stronger), an overlap `than` has turned off
/// (--overlap-grad-reduce, --overlap-param-gather), or the unfused loss
/// where `than` fuses it; every other key equal, and at least one of
/// those changes.
///
/// The performance model is monotone in each of them (time_model.cpp:
/// recomputation adds its forward again, an overlapped transfer costs at
/// most its own time, the fused loss moves fewer bytes), so a measured run
/// of `than` bounds `c` from above: the session's correction, fitted on
/// other splits, must not predict `c` faster (throughput_estimator). The
/// one way such a change pays is memory: stronger recomputation relieving
/// a run at the device's limit, which the estimator checks separately.
bool only_adds_work(const training_config& c, const training_config& than);

} // namespace paratune
