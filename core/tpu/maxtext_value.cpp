#include "core/tpu/maxtext_value.hpp"

#include <cctype>
#include <charconv>
#include <string>
#include <vector>

namespace paratune {

namespace {

std::string_view trimmed(std::string_view v) {
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front())))
    v.remove_prefix(1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back())))
    v.remove_suffix(1);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    v = v.substr(1, v.size() - 2);
  return v;
}

// A list's elements, split at its own commas (not a nested list's).
std::vector<std::string_view> elements(std::string_view list) {
  std::vector<std::string_view> out;
  const auto inner = list.substr(1, list.size() - 2);
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < inner.size(); ++i) {
    if (inner[i] == '[')
      ++depth;
    else if (inner[i] == ']')
      --depth;
    else if (inner[i] == ',' && depth == 0) {
      out.push_back(inner.substr(start, i - start));
      start = i + 1;
    }
  }
  if (!trimmed(inner).empty())
    out.push_back(inner.substr(start));
  return out;
}

std::optional<bool> boolean(std::string_view v) {
  if (v == "true" || v == "True")
    return true;
  if (v == "false" || v == "False")
    return false;
  return std::nullopt;
}

} // namespace

std::optional<double> maxtext_number(std::string_view v) {
  v = trimmed(v);
  std::string digits;
  for (size_t i = 0; i < v.size(); ++i) {
    const bool between_digits = v[i] == '_' && i > 0 && i + 1 < v.size()
                                && std::isdigit(static_cast<unsigned char>(v[i - 1]))
                                && std::isdigit(static_cast<unsigned char>(v[i + 1]));
    if (!between_digits)
      digits += v[i];
  }
  double out = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    return std::nullopt;
  return out;
}

bool same_maxtext_value(std::string_view a, std::string_view b) {
  a = trimmed(a);
  b = trimmed(b);
  const bool list_a = a.size() >= 2 && a.front() == '[' && a.back() == ']';
  const bool list_b = b.size() >= 2 && b.front() == '[' && b.back() == ']';
  if (list_a || list_b) {
    if (!list_a || !list_b)
      return false;
    const auto ea = elements(a);
    const auto eb = elements(b);
    if (ea.size() != eb.size())
      return false;
    for (size_t i = 0; i < ea.size(); ++i)
      if (!same_maxtext_value(ea[i], eb[i]))
        return false;
    return true;
  }
  if (const auto ba = boolean(a), bb = boolean(b); ba || bb)
    return ba == bb;
  if (const auto na = maxtext_number(a), nb = maxtext_number(b); na || nb)
    return na && nb && *na == *nb;
  return a == b;
}

} // namespace paratune
