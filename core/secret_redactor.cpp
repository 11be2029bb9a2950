#include "core/secret_redactor.hpp"

#include <algorithm>

namespace paratune {

secret_redactor::secret_redactor(std::vector<std::string> values) {
  std::erase_if(values, [](const std::string& v) { return v.size() < min_length; });
  // Longest first: at one position the longer of two overlapping values wins.
  std::sort(values.begin(), values.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  values.erase(std::unique(values.begin(), values.end()), values.end());
  values_ = std::move(values);
}

std::string secret_redactor::redact(std::string_view text) const {
  std::string out;
  std::size_t from = 0;
  for (;;) {
    // The earliest occurrence of any value; the longest where several start there.
    std::size_t at = std::string_view::npos, length = 0;
    for (const auto& v : values_) {
      const auto p = text.find(v, from);
      if (p < at)
        at = p, length = v.size();
    }
    if (at == std::string_view::npos)
      break;
    out.append(text.substr(from, at - from));
    out.append(mark);
    from = at + length;
  }
  if (from == 0)
    return std::string(text);
  out.append(text.substr(from));
  return out;
}

} // namespace paratune
