#pragma once

#include <string>
#include <string_view>

namespace paratune {

/// `s` with every byte that is not part of a well-formed UTF-8 sequence
/// replaced by U+FFFD. Logs carry binary junk and cut lines; JSON must not.
std::string utf8_repair(std::string_view s);

} // namespace paratune
