#pragma once

#include <string>

#include "report/session_report.hpp"

namespace paratune {

/// The report as one self-contained HTML page: inline CSS, the two charts
/// as inline SVG, no script and no external reference. Every text from the
/// pool is HTML-escaped.
std::string render_html(const session_report& r);

} // namespace paratune
