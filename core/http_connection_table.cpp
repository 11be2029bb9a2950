#include "core/http_connection_table.hpp"

#include <algorithm>

namespace paratune {

std::string http_peer::describe() const {
  return by == kind::local_user ? "uid " + std::to_string(uid) : address;
}

const char* to_string(shed_reason r) {
  switch (r) {
  case shed_reason::deadline:
    return "deadline";
  case shed_reason::peer_bound:
    return "peer_bound";
  case shed_reason::total_bound:
    return "total_bound";
  }
  return "unknown";
}

http_connection_table::http_connection_table(http_connection_limits limits, http_peer owner)
  : limits_(limits), owner_(std::move(owner)) {
  limits_.per_peer = std::max<std::size_t>(1, limits_.per_peer);
  limits_.total = std::max<std::size_t>(1, limits_.total);
}

std::size_t http_connection_table::open_of(const http_peer& peer) const {
  const auto it = peers_.find(peer);
  return it == peers_.end() ? 0 : it->second.live;
}

std::optional<http_connection_table::id>
http_connection_table::oldest_waiting(const http_peer& peer) const {
  const auto it = peers_.find(peer);
  if (it == peers_.end())
    return std::nullopt;
  for (const id i : it->second.ids) {
    const auto& e = entries_.at(i);
    if (!e.shedding && e.state == phase::awaiting_request)
      return i;
  }
  return std::nullopt;
}

http_connection_table::shed http_connection_table::mark(id which, shed_reason why) {
  auto& e = entries_.at(which);
  e.shedding = true;
  --peers_.at(e.peer).live;
  --live_;
  return {which, why};
}

std::vector<http_connection_table::shed>
http_connection_table::opened(id which, const http_peer& peer, clock::time_point now) {
  entries_[which] = entry{peer, phase::awaiting_request, now + limits_.request_deadline, false};
  auto& mine = peers_[peer];
  mine.ids.insert(which);
  ++mine.live;
  ++live_;
  if (mine.live > limits_.per_peer) {
    // The peer's own oldest waiting one; the new one waits too, so there is one.
    return {mark(*oldest_waiting(peer), shed_reason::peer_bound)};
  }
  if (live_ <= limits_.total)
    return {};
  // Over the total: the peers holding the most give way first, the owner
  // only to the owner.
  std::vector<std::pair<std::size_t, const http_peer*>> by_size;
  for (const auto& [p, conns] : peers_)
    if (conns.live > 0 && (p != owner_ || peer == owner_))
      by_size.emplace_back(conns.live, &p);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [size, p] : by_size)
    if (const auto victim = oldest_waiting(*p))
      return {mark(*victim, shed_reason::total_bound)};
  return {mark(which, shed_reason::total_bound)};
}

void http_connection_table::request_arrived(id which, clock::time_point now) {
  const auto it = entries_.find(which);
  if (it == entries_.end())
    return;
  it->second.state = phase::answering;
  it->second.deadline = now + limits_.answer_deadline;
}

void http_connection_table::answer_sent(id which, clock::time_point now) {
  const auto it = entries_.find(which);
  if (it == entries_.end())
    return;
  it->second.state = phase::awaiting_request;
  it->second.deadline = now + limits_.request_deadline;
}

std::vector<http_connection_table::shed> http_connection_table::expired(clock::time_point now) {
  std::vector<shed> out;
  for (auto& [i, e] : entries_)
    if (!e.shedding && e.deadline <= now)
      out.push_back(mark(i, shed_reason::deadline));
  return out;
}

std::optional<http_connection_table::clock::time_point>
http_connection_table::next_deadline() const {
  std::optional<clock::time_point> next;
  for (const auto& [i, e] : entries_)
    if (!e.shedding && (!next || e.deadline < *next))
      next = e.deadline;
  return next;
}

void http_connection_table::closed(id which) {
  const auto it = entries_.find(which);
  if (it == entries_.end())
    return;
  const auto peer_it = peers_.find(it->second.peer);
  if (!it->second.shedding) {
    --peer_it->second.live;
    --live_;
  }
  peer_it->second.ids.erase(which);
  if (peer_it->second.ids.empty())
    peers_.erase(peer_it);
  entries_.erase(it);
}

} // namespace paratune
