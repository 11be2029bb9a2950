#include "dashboard/page_frame.hpp"

#include <cstdio>
#include <random>

#include "report/answer_html.hpp"

namespace paratune {

namespace {

// Plain and legible, and the chart the page embeds (report/charts.hpp).
constexpr const char* style = R"css(
body { font-family: "DejaVu Sans", sans-serif; margin: 1.5em; color: #1d1d1f; }
h1 { font-size: 1.4em; }
h2 { font-size: 1.15em; margin-top: 1.6em; }
h3 { font-size: 1em; margin-bottom: 0.3em; }
#sessions td { white-space: nowrap; }
table { border-collapse: collapse; }
th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
tr.failed td { background: #fdecea; }
tr.running td { color: #666; font-style: italic; }
.state { font-weight: bold; }
.note { margin: 0.2em 0 0.2em 1em; white-space: pre-wrap; }
.diagnosis { color: #8a1c12; }
.error { color: #8a1c12; font-family: "DejaVu Sans Mono", monospace; }
.reasoning { color: #333; }
#status { color: #666; }
dl.job { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dl.job dt { font-weight: bold; }
dl.job dd { margin: 0; }
.charts svg { display: block; margin: 12px 0; border: 1px solid #ddd; max-width: 100%; height: auto; }
#trials td:first-child { min-width: 16em; }
.change { font-size: 0.8em; color: #555; white-space: normal; text-align: left; }
.change.exploration { font-style: italic; }
)css";

} // namespace

std::string new_nonce() {
  std::random_device rd;
  char out[33];
  for (int i = 0; i < 4; ++i)
    std::snprintf(out + 8 * i, 9, "%08x", unsigned(rd()));
  return out;
}

std::string page_policy(const std::string& nonce) {
  return "default-src 'none'; connect-src 'self'; img-src 'self'; script-src 'nonce-" + nonce
         + "'; style-src 'nonce-" + nonce
         + "'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
}

std::string data_policy() {
  return "default-src 'none'; frame-ancestors 'none'";
}

std::string page_frame(const std::string& title, const std::string& body,
                       const std::string& nonce) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>" + title + "</title>\n<style nonce=\"" + nonce + "\">" + style
         + answer_style() + "</style>\n</head>\n<body>\n" + body + "</body>\n</html>\n";
}

} // namespace paratune
