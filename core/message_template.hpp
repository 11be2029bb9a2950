#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paratune {

/// The values of a message template's {name} placeholders.
using template_values = std::vector<std::pair<std::string_view, std::string>>;

/// `text` with each {name} replaced by its value: how the rule tables
/// (Megatron-LM's, MaxText's) hold a framework's message and fill it in. A
/// placeholder without a value stays as written, so a missing value shows
/// in tests.
std::string fill_placeholders(std::string_view text, const template_values& values);

} // namespace paratune
