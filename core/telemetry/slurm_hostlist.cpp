#include "core/telemetry/slurm_hostlist.hpp"

#include <charconv>

namespace paratune {

namespace {

bool host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
         || c == '-' || c == '_';
}

// The entries of a list: split at commas outside brackets.
std::vector<std::string_view> entries(std::string_view list) {
  std::vector<std::string_view> out;
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    if (i == list.size() || (list[i] == ',' && depth == 0)) {
      out.push_back(list.substr(start, i - start));
      start = i + 1;
    } else if (list[i] == '[') {
      ++depth;
    } else if (list[i] == ']') {
      --depth;
    }
  }
  return out;
}

// "01-03,07" as its numbers' texts, padded as written.
std::variant<std::vector<std::string>, hostlist_error> expand_ranges(std::string_view ranges,
                                                                     size_t room) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= ranges.size()) {
    const size_t comma = std::min(ranges.find(',', start), ranges.size());
    const auto range = ranges.substr(start, comma - start);
    const size_t dash = range.find('-');
    const auto first = range.substr(0, dash);
    const auto last = dash == std::string_view::npos ? first : range.substr(dash + 1);
    unsigned long a = 0, b = 0;
    const auto pa = std::from_chars(first.data(), first.data() + first.size(), a);
    const auto pb = std::from_chars(last.data(), last.data() + last.size(), b);
    if (first.empty() || last.empty() || pa.ptr != first.data() + first.size()
        || pb.ptr != last.data() + last.size() || b < a || first.size() > 9 || last.size() > 9)
      return hostlist_error{"bad range '" + std::string(range) + "'"};
    if (b - a + 1 > room - std::min(room, out.size()))
      return hostlist_error{"more than " + std::to_string(max_hostlist_hosts) + " hosts"};
    for (unsigned long n = a; n <= b; ++n) {
      auto text = std::to_string(n);
      if (text.size() < first.size())
        text.insert(0, first.size() - text.size(), '0');
      out.push_back(std::move(text));
    }
    start = comma + 1;
  }
  return out;
}

// One entry: text and bracket groups, every combination in order.
std::variant<std::vector<std::string>, hostlist_error> expand_entry(std::string_view entry,
                                                                    size_t room) {
  std::vector<std::string> hosts{""};
  size_t i = 0;
  while (i < entry.size()) {
    if (entry[i] == '[') {
      const size_t close = entry.find(']', i);
      if (close == std::string_view::npos)
        return hostlist_error{"unclosed '['"};
      auto numbers = expand_ranges(entry.substr(i + 1, close - i - 1), room);
      if (auto* e = std::get_if<hostlist_error>(&numbers))
        return *e;
      const auto& n = std::get<std::vector<std::string>>(numbers);
      if (hosts.size() * n.size() > room)
        return hostlist_error{"more than " + std::to_string(max_hostlist_hosts) + " hosts"};
      std::vector<std::string> next;
      next.reserve(hosts.size() * n.size());
      for (const auto& h : hosts)
        for (const auto& x : n)
          next.push_back(h + x);
      hosts = std::move(next);
      i = close + 1;
    } else if (host_char(entry[i])) {
      for (auto& h : hosts)
        h += entry[i];
      ++i;
    } else {
      return hostlist_error{"a host name holds only letters, digits, '.', '-' and '_'"};
    }
  }
  if (hosts.front().empty() || hosts.front().size() > 253)
    return hostlist_error{"an empty or overlong host name"};
  return hosts;
}

} // namespace

std::variant<std::vector<std::string>, hostlist_error> expand_slurm_hostlist(std::string_view list) {
  std::vector<std::string> out;
  if (list.size() > 65536)
    return hostlist_error{"node list '" + std::string(list.substr(0, 40)) + "...' is too long"};
  for (const auto entry : entries(list)) {
    auto hosts = expand_entry(entry, max_hostlist_hosts - out.size());
    if (auto* e = std::get_if<hostlist_error>(&hosts))
      return hostlist_error{"node list '" + std::string(list.substr(0, 80)) + "': " + e->message};
    for (auto& h : std::get<std::vector<std::string>>(hosts))
      out.push_back(std::move(h));
  }
  return out;
}

} // namespace paratune
