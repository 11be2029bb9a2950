#include "messages/control_wire.hpp"

#include <array>
#include <utility>

namespace paratune::control {

namespace {

constexpr std::array<std::pair<control_op, const char*>, 7> op_words{{
  {control_op::health, "health"},
  {control_op::submit, "submit"},
  {control_op::list, "list"},
  {control_op::status, "status"},
  {control_op::cancel, "cancel"},
  {control_op::history, "history"},
  {control_op::ask, "ask"},
}};

} // namespace

const char* to_string(control_op op) {
  for (const auto& [o, word] : op_words)
    if (o == op)
      return word;
  return "?";
}

std::optional<control_op> parse_control_op(std::string_view word) {
  for (const auto& [o, w] : op_words)
    if (word == w)
      return o;
  return std::nullopt;
}

} // namespace paratune::control
