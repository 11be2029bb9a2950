#include "core/message_template.hpp"

namespace paratune {

std::string fill_placeholders(std::string_view text, const template_values& values) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find('{', i);
    if (open == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    out.append(text.substr(i, open - i));
    const size_t close = text.find('}', open);
    if (close == std::string_view::npos) {
      out.append(text.substr(open));
      break;
    }
    const std::string_view name = text.substr(open + 1, close - open - 1);
    bool found = false;
    for (const auto& [key, value] : values)
      if (key == name) {
        out += value;
        found = true;
        break;
      }
    if (!found)
      out.append(text.substr(open, close - open + 1));
    i = close + 1;
  }
  return out;
}

} // namespace paratune
