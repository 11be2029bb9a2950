#include "core/early_stop_policy.hpp"

namespace paratune {

const char* to_string(stop_reason r) {
  switch (r) {
    case stop_reason::none: return "none";
    case stop_reason::stable: return "stable";
    case stop_reason::cannot_beat_incumbent: return "cannot_beat_incumbent";
    case stop_reason::failure: return "failure";
    case stop_reason::hang: return "hang";
    case stop_reason::wall_clock: return "wall_clock";
    case stop_reason::cancelled: return "cancelled";
  }
  return "none";
}

bool parse_stop_reason(const std::string& text, stop_reason& out) {
  for (auto r : {stop_reason::none, stop_reason::stable, stop_reason::cannot_beat_incumbent,
                 stop_reason::failure, stop_reason::hang, stop_reason::wall_clock,
                 stop_reason::cancelled})
    if (text == to_string(r)) {
      out = r;
      return true;
    }
  return false;
}

} // namespace paratune
