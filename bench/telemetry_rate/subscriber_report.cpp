#include "bench/telemetry_rate/subscriber_report.hpp"

#include <charconv>
#include <utility>
#include <vector>

namespace paratune::bench {

namespace {

template <class R>
auto fields(R& r) {
  return std::vector<std::pair<const char*, decltype(&r.delivered)>>{
    {"delivered", &r.delivered}, {"live", &r.live},           {"recovered", &r.recovered},
    {"gaps", &r.gaps},           {"lost", &r.lost},           {"twice", &r.twice},
    {"disordered", &r.disordered}, {"late", &r.late},         {"duplicates", &r.duplicates},
    {"history_failures", &r.history_failures}};
}

bool read_number(std::string_view text, std::string_view key, int64_t& out) {
  std::string needle = " ";
  needle.append(key);
  needle.push_back('=');
  const auto at = text.find(needle);
  if (at == std::string_view::npos)
    return false;
  const auto begin = text.data() + at + needle.size();
  return std::from_chars(begin, text.data() + text.size(), out).ec == std::errc{};
}

} // namespace

std::string subscriber_report::line() const {
  std::string out = "subscriber";
  auto copy = *this;
  for (const auto& [key, field] : fields(copy))
    out += std::string(" ") + key + "=" + std::to_string(*field);
  out += " last_ns=" + std::to_string(last_ns);
  return out;
}

std::optional<subscriber_report> subscriber_report::parse(std::string_view text) {
  const auto at = text.rfind("subscriber ");
  if (at == std::string_view::npos)
    return std::nullopt;
  const auto line = text.substr(at, text.find('\n', at) - at);
  subscriber_report r;
  for (const auto& [key, field] : fields(r)) {
    int64_t v = 0;
    if (!read_number(line, key, v) || v < 0)
      return std::nullopt;
    *field = uint64_t(v);
  }
  if (!read_number(line, "last_ns", r.last_ns))
    return std::nullopt;
  return r;
}

} // namespace paratune::bench
