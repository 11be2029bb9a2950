#include "core/megatron_option_list.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "core/text.hpp"
#include "core/value_range.hpp"

namespace paratune {

megatron_option_list megatron_option_list::parse(std::string_view text) {
  megatron_option_list list;
  int number = 0;
  for (const auto& raw : split(std::string(text), '\n')) {
    ++number;
    const std::string line = trim(raw);
    if (line.empty() || line.front() == '#')
      continue;
    const auto space = line.find(' ');
    const std::string where = "Megatron-LM option list, line " + std::to_string(number);
    if (space == std::string::npos || line.front() != '-')
      throw input_error(where + ": expected an option and its arity, got '" + line + "'");
    megatron_option o;
    o.name = line.substr(0, space);
    const std::string arity = trim(line.substr(space + 1));
    if (arity == "0") o.arity = option_arity::none;
    else if (arity == "?") o.arity = option_arity::optional;
    else if (arity == "*") o.arity = option_arity::any;
    else if (arity == "+") o.arity = option_arity::at_least_one;
    else {
      o.arity = option_arity::exactly;
      o.count = parse_int_field(where, arity, {1, 16});
    }
    list.options_.push_back(std::move(o));
  }
  std::sort(list.options_.begin(), list.options_.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return list;
}

const megatron_option* megatron_option_list::find(std::string_view name) const {
  auto it = std::lower_bound(options_.begin(), options_.end(), name,
                             [](const megatron_option& o, std::string_view n) { return o.name < n; });
  return it != options_.end() && it->name == name ? &*it : nullptr;
}

} // namespace paratune
