#include "core/human_units.hpp"

#include <cmath>
#include <cstdio>

namespace paratune {

namespace {

std::string printed(const char* format, double value) {
  char out[64];
  std::snprintf(out, sizeof out, format, value);
  return out;
}

} // namespace

std::string human_duration(double ms) {
  if (!std::isfinite(ms) || ms < 0)
    return "-";
  // Each unit holds three significant digits until the next takes over:
  // "999 ms", then "1.00 s"; "59.9 s", then "1.0 min"; "59.9 min", then "1.0 h".
  if (ms < 999.5)
    return printed("%.0f ms", ms);
  const double s = ms / 1000;
  if (s < 9.995)
    return printed("%.2f s", s);
  if (s < 59.95)
    return printed("%.1f s", s);
  const double min = s / 60;
  if (min < 59.95)
    return printed("%.1f min", min);
  return printed("%.1f h", min / 60);
}

std::string count_of(long long n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

} // namespace paratune
