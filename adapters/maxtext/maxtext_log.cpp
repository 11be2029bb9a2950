#include "adapters/maxtext/maxtext_log.hpp"

namespace paratune {

const char* to_string(step_phase p) {
  switch (p) {
    case step_phase::measured: return "measured";
    case step_phase::compile: return "compile";
    case step_phase::async_dispatch: return "async_dispatch";
    case step_phase::rampup: return "rampup";
    case step_phase::profiler_boundary: return "profiler_boundary";
  }
  return "measured";
}

} // namespace paratune
