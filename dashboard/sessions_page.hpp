#pragma once

#include <string>
#include <vector>

#include "dashboard/session_view.hpp"

namespace paratune {

/// `/`: one row per session in the order given (the server passes newest
/// first): id (a link to its page), job, model, cluster, state, trials
/// done/budget, best TFLOP/s/GPU and MFU, when it opened. Every string
/// from the pool is HTML-escaped. Then the TPU sessions' table
/// (tpu_sessions_table), when there are any.
std::string sessions_page(const std::vector<session_view>& views,
                          const std::vector<tpu_session_view>& tpu_views,
                          const std::string& nonce);

} // namespace paratune
