#include "core/telemetry/prometheus_text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace paratune {

const std::string* prometheus_sample::label(std::string_view name) const {
  for (const auto& l : labels)
    if (l.name == name)
      return &l.value;
  return nullptr;
}

namespace {

bool is_name_start(char c, bool colon_allowed) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon_allowed && c == ':');
}

bool is_name_char(char c, bool colon_allowed) {
  return is_name_start(c, colon_allowed) || (c >= '0' && c <= '9');
}

bool is_blank(char c) { return c == ' ' || c == '\t'; }

/// One sample line being read; each read_* leaves `why` set on a grammar error.
struct sample_cursor {
  std::string_view text;
  std::size_t at = 0;
  std::string why;

  bool done() const { return at >= text.size(); }
  char peek() const { return done() ? '\0' : text[at]; }
  void skip_blanks() {
    while (!done() && is_blank(text[at]))
      ++at;
  }
  bool fail(std::string reason) {
    if (why.empty())
      why = std::move(reason);
    return false;
  }

  /// A metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or a label name (no ':').
  bool read_name(std::string& out, bool colon_allowed, const char* what) {
    const std::size_t start = at;
    if (!is_name_start(peek(), colon_allowed))
      return fail(std::string("expected a ") + what + " at column " + std::to_string(at + 1));
    while (!done() && is_name_char(text[at], colon_allowed))
      ++at;
    out.assign(text.substr(start, at - start));
    return true;
  }

  /// A quoted label value with the format's three escapes: \\, \" and \n.
  bool read_quoted(std::string& out) {
    if (peek() != '"')
      return fail("expected '\"' to open a label value at column " + std::to_string(at + 1));
    ++at;
    while (!done()) {
      const char c = text[at++];
      if (c == '"')
        return true;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      const char e = peek();
      ++at;
      if (e == '\\' || e == '"')
        out.push_back(e);
      else if (e == 'n')
        out.push_back('\n');
      else
        return fail(std::string("unknown escape '\\") + (e ? std::string(1, e) : "")
                    + "' in a label value (only \\\\, \\\" and \\n)");
    }
    return fail("label value not closed by '\"'");
  }

  bool read_labels(std::vector<prometheus_label>& out, std::size_t max_labels) {
    ++at; // '{'
    for (;;) {
      skip_blanks();
      if (peek() == '}') {
        ++at;
        return true;
      }
      prometheus_label l;
      if (!read_name(l.name, false, "label name"))
        return false;
      skip_blanks();
      if (peek() != '=')
        return fail("expected '=' after label '" + l.name + "'");
      ++at;
      skip_blanks();
      if (!read_quoted(l.value))
        return false;
      for (const auto& seen : out)
        if (seen.name == l.name)
          return fail("label '" + l.name + "' given twice");
      if (out.size() == max_labels)
        return fail("more than " + std::to_string(max_labels) + " labels");
      out.push_back(std::move(l));
      skip_blanks();
      if (peek() == ',') {
        ++at;
        continue;
      }
      if (peek() != '}')
        return fail("expected ',' or '}' after label '" + out.back().name + "'");
    }
  }

  /// The next blank-separated token.
  std::string_view token() {
    const std::size_t start = at;
    while (!done() && !is_blank(text[at]))
      ++at;
    return text.substr(start, at - start);
  }
};

/// A sample value as Go's strconv.ParseFloat reads it: a decimal number
/// (exponent allowed), or NaN, Inf, +Inf, -Inf in any case. No hex floats.
std::optional<double> read_value(std::string_view t) {
  if (t.empty())
    return std::nullopt;
  const bool negative = t.front() == '-';
  std::string_view body = (t.front() == '+' || t.front() == '-') ? t.substr(1) : t;
  auto lower = [](std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return out;
  };
  const auto word = lower(body);
  if (word == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  if (word == "inf" || word == "infinity")
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  if (body.empty() || !(std::isdigit((unsigned char)body.front()) || body.front() == '.'))
    return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v,
                                         std::chars_format::general);
  if (ec == std::errc::result_out_of_range)
    v = std::numeric_limits<double>::infinity(); // Go's ParseFloat rounds to ±Inf too
  else if (ec != std::errc() || end != body.data() + body.size())
    return std::nullopt;
  return negative ? -v : v;
}

std::optional<int64_t> read_timestamp(std::string_view t) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size())
    return std::nullopt;
  return v;
}

/// One sample line; `why` empty on success.
prometheus_sample read_sample(std::string_view line, std::size_t line_no,
                              const prometheus_limits& limits, std::string& why) {
  prometheus_sample s;
  s.line = line_no;
  sample_cursor c{line, 0, {}};
  c.skip_blanks();
  if (!c.read_name(s.metric, true, "metric name")) {
    why = c.why;
    return s;
  }
  c.skip_blanks();
  if (c.peek() == '{' && !c.read_labels(s.labels, limits.max_labels)) {
    why = c.why;
    return s;
  }
  c.skip_blanks();
  const auto value_text = c.token();
  const auto value = read_value(value_text);
  if (!value) {
    why = value_text.empty() ? "no value after '" + s.metric + "'"
                             : "value '" + std::string(value_text) + "' is not a number";
    return s;
  }
  s.value = *value;
  c.skip_blanks();
  if (!c.done()) {
    const auto stamp_text = c.token();
    s.timestamp_ms = read_timestamp(stamp_text);
    if (!s.timestamp_ms) {
      why = "timestamp '" + std::string(stamp_text) + "' is not an integer of milliseconds";
      return s;
    }
    c.skip_blanks();
    if (!c.done())
      why = "unexpected text after the timestamp at column " + std::to_string(c.at + 1);
  }
  return s;
}

bool wanted_metric(const prometheus_metric_filter& wanted, std::string_view line) {
  if (wanted.empty())
    return true;
  std::size_t end = 0;
  while (end < line.size() && is_name_char(line[end], true))
    ++end;
  const auto name = line.substr(0, end);
  return std::find(wanted.begin(), wanted.end(), name) != wanted.end();
}

void add_malformed(prometheus_parse& out, const prometheus_limits& limits, std::size_t line,
                   std::string why) {
  ++out.malformed_lines;
  if (out.malformed.size() < limits.max_reported)
    out.malformed.push_back({line, std::move(why)});
}

/// Reads one line (without its newline) into `out`.
void read_line(std::string_view line, std::size_t line_no, const prometheus_limits& limits,
               const prometheus_metric_filter& wanted, prometheus_parse& out) {
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  std::size_t first = 0;
  while (first < line.size() && is_blank(line[first]))
    ++first;
  line.remove_prefix(first);
  if (line.empty())
    return;
  if (line.front() == '#') { // HELP, TYPE or any other comment: nothing to keep
    ++out.comment_lines;
    return;
  }
  if (line.size() > limits.max_line_bytes)
    return add_malformed(out, limits, line_no,
                         "line longer than " + std::to_string(limits.max_line_bytes) + " bytes");
  std::string why;
  auto s = read_sample(line, line_no, limits, why);
  if (!why.empty())
    return add_malformed(out, limits, line_no, std::move(why));
  if (!wanted_metric(wanted, line) || out.samples.size() >= limits.max_samples) {
    ++out.skipped_samples;
    return;
  }
  out.samples.push_back(std::move(s));
}

} // namespace

prometheus_parse parse_prometheus_text(std::string_view text, const prometheus_limits& limits,
                                       const prometheus_metric_filter& wanted) {
  prometheus_parse out;
  if (text.size() > limits.max_bytes) {
    out.truncated = true;
    text = text.substr(0, limits.max_bytes);
    // The cut line is incomplete: read only the lines that ended before it.
    const auto last_newline = text.rfind('\n');
    text = last_newline == std::string_view::npos ? std::string_view{}
                                                  : text.substr(0, last_newline + 1);
  }
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const auto end = text.find('\n');
    read_line(text.substr(0, end), line_no, limits, wanted, out);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  }
  return out;
}

} // namespace paratune
