#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/session_report.hpp"

namespace paratune {

/// Text safe inside GitHub markdown, on one line (table cells too): the
/// characters that would start markup are escaped, a newline becomes a space.
std::string markdown_escape(std::string_view text);

/// Where the markdown's charts are: SVG files beside it (report_charts'
/// order), linked by these relative names; none (standard output) puts a
/// note in their place.
struct markdown_charts {
  struct file {
    std::string title;
    std::string name;
  };
  std::vector<file> files;
};

/// The report as GitHub markdown: header, the answer (best configuration,
/// its figures and gains, production command and environment, full-run
/// price), charts, trials table, decision chain, model.
std::string render_markdown(const session_report& r, const markdown_charts& charts);

} // namespace paratune
