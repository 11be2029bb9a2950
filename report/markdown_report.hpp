#pragma once

#include <string>
#include <string_view>

#include "report/session_report.hpp"

namespace paratune {

/// Text safe inside GitHub markdown, on one line (table cells too): the
/// characters that would start markup are escaped, a newline becomes a space.
std::string markdown_escape(std::string_view text);

/// Where the markdown's charts are: SVG files beside it, linked by these
/// relative names; empty names (standard output) put a note in their place.
struct markdown_charts {
  std::string mfu_file;
  std::string throughput_file;
};

/// The report as GitHub markdown: header, decision chain, trials table,
/// charts, full-run value.
std::string render_markdown(const session_report& r, const markdown_charts& charts);

} // namespace paratune
