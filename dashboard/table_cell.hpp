#pragma once

#include <string>

#include "report/svg_canvas.hpp"

namespace paratune {

/// One cell of a dashboard table: the text escaped, with `cls` (a fixed
/// class name of the page's stylesheet, never data) when given.
inline std::string table_cell(const std::string& text, const char* cls = nullptr) {
  const std::string open = cls ? "<td class=\"" + std::string(cls) + "\">" : "<td>";
  return open + markup_escape(text) + "</td>";
}

} // namespace paratune
