#include "adapters/megatron/startup_lines.hpp"

#include "adapters/megatron/text_scan.hpp"

namespace paratune {

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || scan::is_digit(c) || c == '_';
}

std::optional<int> int_after(std::string_view s, std::string_view label) {
  const std::size_t at = scan::find(s, label);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = s.substr(at + label.size());
  const auto v = scan::read_int(rest);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

// The next integer in `s` before `stop`, skipping other characters
// ("tensor_rank: 0" reads as 0).
std::optional<int64_t> next_int(std::string_view& s, char stop) {
  while (!s.empty() && s.front() != stop && !scan::is_digit(s.front())) s.remove_prefix(1);
  if (s.empty() || s.front() == stop) return std::nullopt;
  return scan::read_int(s);
}

bool parse_one_rank_count(std::string_view seg, rank_parameters& out) {
  const std::size_t open = seg.find("rank (");
  const std::size_t colon = seg.rfind(": ");
  if (open == std::string_view::npos || colon == std::string_view::npos || colon < open)
    return false;
  std::string_view ranks = seg.substr(open + 6);
  const auto tp = next_int(ranks, ')');
  if (!tp) return false;
  const auto pp = next_int(ranks, ')');
  const auto count = scan::leading_int(seg.substr(colon + 2));
  if (!pp || !count) return false;
  out = rank_parameters{static_cast<int>(*tp), static_cast<int>(*pp), *count};
  return true;
}

} // namespace

std::optional<args_marker> parse_args_marker(std::string_view s) {
  if (!s.starts_with("---") || !s.ends_with("---")) return std::nullopt;
  if (scan::contains(s, " end of arguments ")) return args_marker::end;
  if (scan::contains(s, " arguments ")) return args_marker::begin;
  return std::nullopt;
}

bool parse_arg_line(std::string_view text, std::string_view& name, std::string_view& value) {
  if (text.size() < 4 || text[0] != ' ' || text[1] != ' ' || !is_name_char(text[2]))
    return false;
  std::size_t i = 2;
  while (i < text.size() && is_name_char(text[i])) ++i;
  if (i >= text.size() || text[i] != ' ') return false;
  name = text.substr(2, i - 2);
  ++i;
  while (i < text.size() && text[i] == '.') ++i;
  if (i < text.size() && text[i] != ' ') return false;  // "name value" without padding
  value = i < text.size() ? scan::trim_right(text.substr(i + 1)) : std::string_view{};
  return true;
}

bool parse_world_size_line(std::string_view s, parallel_layout& out) {
  if (!s.starts_with("using world size:")) return false;
  out.world_size = int_after(s, "world size: ");
  out.data_parallel = int_after(s, "data-parallel size: ");
  if (!out.data_parallel) out.data_parallel = int_after(s, "data-parallel-size: ");
  out.context_parallel = int_after(s, "context-parallel size: ");
  out.tensor_parallel = int_after(s, "tensor-model-parallel size: ");
  out.pipeline_parallel = int_after(s, "pipeline-model-parallel size: ");
  return true;
}

std::optional<int> parse_microbatches_line(std::string_view s) {
  if (!scan::consume(s, "setting number of micro")) return std::nullopt;
  if (!scan::consume(s, "-batches") && !scan::consume(s, "batches")) return std::nullopt;
  if (!scan::consume(s, " to constant ")) return std::nullopt;
  const auto v = scan::read_int(s);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

bool parse_datetime_marker(std::string_view s, datetime_marker& out) {
  if (s.size() < 3 || s[0] != '[') return false;
  const std::size_t close = s.find("] datetime: ");
  if (close == std::string_view::npos) return false;
  out.name.assign(s.substr(1, close - 1));
  out.timestamp.assign(scan::trim(s.substr(close + 12)));
  return true;
}

std::size_t parse_rank_parameters_line(std::string_view s, std::vector<rank_parameters>& out) {
  constexpr std::string_view tag = "> number of parameters on";
  std::size_t added = 0;
  std::size_t at = scan::find(s, tag);
  while (at != std::string_view::npos) {
    const std::string_view rest = s.substr(at + tag.size());
    const std::size_t next = scan::find(rest, tag);
    rank_parameters r;
    if (parse_one_rank_count(rest.substr(0, next), r)) {
      out.push_back(r);
      ++added;
    }
    if (next == std::string_view::npos) break;
    at += tag.size() + next;
  }
  return added;
}

std::optional<std::string_view> parse_exit_line(std::string_view s) {
  if (!s.starts_with("exiting program ")) return std::nullopt;
  return s;
}

} // namespace paratune
