#include "adapters/megatron/line_prefix.hpp"

#include "adapters/megatron/text_scan.hpp"

namespace paratune {

namespace {

// Launcher tags are short; a longer bracket is message text.
constexpr std::size_t max_tag = 64;

// `[tag]:` with no space inside the brackets (torchrun, PyTorch rank tags).
bool strip_bracket_tag(std::string_view& s) {
  if (s.size() < 4 || s[0] != '[') return false;
  const std::size_t limit = std::min(s.size(), max_tag);
  for (std::size_t i = 1; i < limit; ++i) {
    const char c = s[i];
    if (c == ']') {
      if (i == 1 || i + 1 >= s.size() || s[i + 1] != ':') return false;
      s.remove_prefix(i + 2);
      return true;
    }
    if (c == ' ' || c == '[') return false;
  }
  return false;
}

// `12: ` from srun --label.
bool strip_task_label(std::string_view& s) {
  std::size_t i = 0;
  while (i < s.size() && i < 6 && scan::is_digit(s[i])) ++i;
  if (i == 0 || i + 1 >= s.size() || s[i] != ':' || s[i + 1] != ' ') return false;
  s.remove_prefix(i + 2);
  return true;
}

// `INFO:some.logger:` as Python's logging.basicConfig prints it.
bool strip_logging_tag(std::string_view& s) {
  std::string_view rest = s;
  if (!scan::consume(rest, "INFO:") && !scan::consume(rest, "WARNING:")
      && !scan::consume(rest, "DEBUG:") && !scan::consume(rest, "ERROR:")
      && !scan::consume(rest, "CRITICAL:"))
    return false;
  const std::size_t limit = std::min(rest.size(), max_tag * 2);
  for (std::size_t i = 0; i < limit; ++i) {
    const char c = rest[i];
    if (c == ':') {
      if (i == 0) return false;
      s = rest.substr(i + 1);
      return true;
    }
    const bool name_char = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                           || scan::is_digit(c) || c == '_' || c == '.';
    if (!name_char) return false;
  }
  return false;
}

// `[NeMo I 2024-05-01 10:00:00 megatron_gpt_model:1234] `
bool strip_nemo_tag(std::string_view& s) {
  if (!s.starts_with("[NeMo ")) return false;
  const std::size_t close = s.find("] ");
  if (close == std::string_view::npos || close > max_tag * 2) return false;
  s.remove_prefix(close + 2);
  return true;
}

} // namespace

std::string_view strip_line_prefixes(std::string_view line) {
  // A handful of stacked tags at most (e.g. `[default0]:[rank0]:`).
  for (int round = 0; round < 4 && !line.empty(); ++round) {
    const char c = line[0];
    bool stripped = false;
    if (c == '[') stripped = strip_bracket_tag(line) || strip_nemo_tag(line);
    else if (scan::is_digit(c)) stripped = strip_task_label(line);
    else if (c >= 'A' && c <= 'Z') stripped = strip_logging_tag(line);
    if (!stripped) break;
  }
  return line;
}

std::optional<std::string_view> take_timestamp(std::string_view& s) {
  std::string_view t = scan::trim_left(s);
  // "[2024-04-06 02:59:36]" is 21 characters, with microseconds 28.
  if (t.size() < 21 || t[0] != '[' || !scan::is_digit(t[1]) || !scan::is_digit(t[4])
      || t[5] != '-')
    return std::nullopt;
  const std::size_t close = t.find(']');
  if (close == std::string_view::npos || close > 40) return std::nullopt;
  const std::string_view stamp = t.substr(1, close - 1);
  s = scan::trim_left(t.substr(close + 1));
  return stamp;
}

} // namespace paratune
