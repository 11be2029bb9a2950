#include "core/perf/memory_verdict.hpp"

#include <cmath>
#include <cstdio>

namespace paratune {

memory_verdict judge_memory(double peak_mib, double limit_mib, const memory_error_band& band) {
  if (limit_mib <= 0 || peak_mib * (1 + band.high) <= limit_mib)
    return memory_verdict::fits;
  if (peak_mib * (1 + band.low) > limit_mib)
    return memory_verdict::does_not_fit;
  return memory_verdict::tight;
}

std::string_view memory_verdict_words(memory_verdict v) {
  switch (v) {
    case memory_verdict::fits: return "fits";
    case memory_verdict::tight: return "tight";
    case memory_verdict::does_not_fit: return "does not fit";
  }
  return "?";
}

std::string describe_memory(double peak_mib, double limit_mib, const memory_error_band& band) {
  const auto verdict = judge_memory(peak_mib, limit_mib, band);
  const int low = int(std::lround(100 * band.low));
  const int high = int(std::lround(100 * band.high));
  char buf[320];
  if (verdict == memory_verdict::does_not_fit)
    std::snprintf(buf, sizeof buf,
                  "does not fit (peak %.0f MiB; even the model's largest measured over-estimate, "
                  "%d%%, leaves %.0f MiB, above the %.0f MiB of the device)",
                  peak_mib, -low, peak_mib * (1 + band.low), limit_mib);
  else
    std::snprintf(buf, sizeof buf,
                  "%s (peak %.0f MiB; the model's measured error, %+d%%..%+d%%, puts the real "
                  "peak at %.0f..%.0f MiB, %s the %.0f MiB of the device%s)",
                  verdict == memory_verdict::fits ? "fits" : "tight", peak_mib, low, high,
                  peak_mib * (1 + band.low), peak_mib * (1 + band.high),
                  verdict == memory_verdict::fits ? "within" : "around", limit_mib,
                  verdict == memory_verdict::fits ? "" : ": only a run can tell");
  return buf;
}

} // namespace paratune
