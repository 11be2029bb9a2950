#pragma once

#include <string>

namespace paratune {

/// The smallest key greater than every key that starts with `prefix`: the
/// iterate_upper_bound of a prefix scan (kvrocks' bounded-iterator idiom).
inline std::string prefix_end(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xff)
    prefix.pop_back();
  if (!prefix.empty())
    prefix.back() = static_cast<char>(prefix.back() + 1);
  return prefix;
}

} // namespace paratune
