#include "adapters/megatron/memory_line.hpp"

#include "adapters/megatron/text_scan.hpp"

namespace paratune {

namespace {

constexpr std::string_view rank_tag = "[Rank ";

// Forks that report in GB scale to MiB so every record has one unit.
double unit_scale(std::string_view header) {
  if (scan::contains(header, "memory (GB)")) return 1024.0;
  return 1.0;
}

void read_field(memory_record& r, std::string_view key, std::string_view value, double scale) {
  const auto v = scan::leading_double(value);
  if (!v) return;
  const double mib = *v * scale;
  if (key == "allocated") r.allocated_mib = mib;
  else if (key == "max allocated") r.max_allocated_mib = mib;
  else if (key == "reserved") r.reserved_mib = mib;
  else if (key == "max reserved") r.max_reserved_mib = mib;
  else if (key == "total device memory used") r.device_used_mib = mib;
}

// One report: "0] (after 20 iterations) memory (MB) | allocated: ... "
bool parse_report(std::string_view s, int64_t line, memory_record& r) {
  const auto rank = scan::read_int(s);
  if (!rank || !scan::consume(s, "]")) return false;
  const std::size_t bar = s.find('|');
  if (bar == std::string_view::npos) return false;
  std::string_view header = scan::trim(s.substr(0, bar));
  if (!scan::contains(header, "memory (")) return false;
  r = memory_record{};
  r.rank = static_cast<int>(*rank);
  r.line = line;
  if (scan::consume(header, "(after ")) r.iteration = scan::read_int(header).value_or(0);
  const double scale = unit_scale(header);
  scan::for_each_piece(s.substr(bar + 1), [&](std::string_view piece) {
    std::string_view key, value;
    if (scan::split_key_value(piece, key, value)) read_field(r, key, value, scale);
  });
  return true;
}

} // namespace

std::size_t parse_memory_line(std::string_view text, int64_t line,
                              std::vector<memory_record>& out) {
  std::size_t added = 0;
  std::size_t at = scan::find(text, rank_tag);
  while (at != std::string_view::npos) {
    const std::string_view rest = text.substr(at + rank_tag.size());
    const std::size_t next = scan::find(rest, rank_tag);
    memory_record r;
    if (parse_report(rest.substr(0, next), line, r)) {
      out.push_back(std::move(r));
      ++added;
    }
    if (next == std::string_view::npos) break;
    at += rank_tag.size() + next;
  }
  return added;
}

} // namespace paratune
