#include "adapters/megatron/text_scan.hpp"

#include <charconv>
#include <cstring>

namespace paratune::scan {

std::size_t find(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return 0;
  if (needle.size() > hay.size()) return std::string_view::npos;
  const void* hit = ::memmem(hay.data(), hay.size(), needle.data(), needle.size());
  if (!hit) return std::string_view::npos;
  return static_cast<std::size_t>(static_cast<const char*>(hit) - hay.data());
}

std::optional<double> read_double(std::string_view& s) {
  s = trim_left(s);
  std::string_view body = s;
  if (!body.empty() && body.front() == '+') body.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec != std::errc()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return v;
}

std::optional<int64_t> read_int(std::string_view& s) {
  s = trim_left(s);
  std::string_view body = s;
  if (!body.empty() && body.front() == '+') body.remove_prefix(1);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec != std::errc()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return v;
}

// The last ": " in `s`. A plain backward loop: string_view::rfind with a
// two-character needle compares at every position and showed in profiles.
std::size_t last_colon_space(std::string_view s) {
  for (std::size_t i = s.size(); i >= 2; --i)
    if (s[i - 2] == ':' && s[i - 1] == ' ') return i - 2;
  return std::string_view::npos;
}

bool split_key_value(std::string_view piece, std::string_view& key, std::string_view& value) {
  std::size_t colon = last_colon_space(piece);
  std::size_t skip = 2;
  if (colon == std::string_view::npos) {
    colon = piece.rfind(':');
    skip = 1;
    if (colon == std::string_view::npos) return false;
  }
  key = trim(piece.substr(0, colon));
  value = trim(piece.substr(colon + skip));
  return true;
}

} // namespace paratune::scan
