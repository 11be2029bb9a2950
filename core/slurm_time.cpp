#include "core/slurm_time.hpp"

#include <vector>

namespace paratune {

namespace {

/// Non-negative numbers separated by ':'; nullopt for an empty or
/// non-digit part.
std::optional<std::vector<long>> colon_parts(std::string_view text) {
  std::vector<long> parts;
  size_t start = 0;
  while (true) {
    const auto end = text.find(':', start);
    const auto part = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (part.empty() || part.size() > 7
        || part.find_first_not_of("0123456789") != std::string_view::npos)
      return std::nullopt;
    parts.push_back(std::stol(std::string(part)));
    if (end == std::string_view::npos)
      return parts;
    start = end + 1;
  }
}

} // namespace

std::optional<int> parse_slurm_time_minutes(std::string_view text) {
  long days = 0;
  const auto dash = text.find('-');
  if (dash != std::string_view::npos) {
    const auto d = colon_parts(text.substr(0, dash));
    if (!d || d->size() != 1)
      return std::nullopt;
    days = d->front();
    text.remove_prefix(dash + 1);
  }
  const auto parts = colon_parts(text);
  if (!parts || parts->size() > 3)
    return std::nullopt;
  long seconds = 0;
  const auto& p = *parts;
  if (dash != std::string_view::npos) // D-HH[:MM[:SS]]
    seconds = p[0] * 3600 + (p.size() > 1 ? p[1] * 60 : 0) + (p.size() > 2 ? p[2] : 0);
  else if (p.size() == 1) // MM
    seconds = p[0] * 60;
  else if (p.size() == 2) // MM:SS
    seconds = p[0] * 60 + p[1];
  else // HH:MM:SS
    seconds = p[0] * 3600 + p[1] * 60 + p[2];
  seconds += days * 86400;
  const long minutes = (seconds + 59) / 60;
  if (minutes < 1 || minutes > 366L * 24 * 60)
    return std::nullopt;
  return int(minutes);
}

} // namespace paratune
