#include "adapters/pool_feed/record_sequencer.hpp"

namespace paratune {

record_sequencer::stream& record_sequencer::stream_of(std::string_view topic) {
  auto it = streams_.find(topic);
  if (it == streams_.end())
    it = streams_.emplace(std::string(topic), stream{}).first;
  return it->second;
}

record_sequencer::verdict record_sequencer::offer_live(std::string_view topic,
                                                       const bus_sequence& number,
                                                       const wire::envelope& e) {
  auto& s = stream_of(topic);
  // The stream continues unbroken only from a number we know, of the same
  // publisher. A first message past number 1, a restarted publisher, or a
  // stream first met in a recovery leave its past unknown: the pool knows.
  const bool continues = s.numbered && s.publisher == number.publisher
                         && number.seq == s.bus_seq + 1;
  const bool first_ever = !s.numbered && s.delivered == 0 && number.seq == 1;
  const bool stale = s.numbered && s.publisher == number.publisher && number.seq <= s.bus_seq;
  if (!stale) {
    s.publisher = number.publisher;
    s.bus_seq = number.seq;
    s.numbered = true;
  }
  if (e.seq <= s.delivered)
    return verdict::duplicate;
  if (!continues && !first_ever)
    return verdict::recover;
  s.delivered = e.seq;
  return verdict::deliver;
}

bool record_sequencer::offer_recovered(std::string_view topic, const wire::envelope& e,
                                       uint64_t read_from) {
  auto& s = stream_of(topic);
  if (e.seq <= s.delivered)
    return false;
  if (s.delivered < read_from && session_floor(e.session) < read_from)
    return false; // its records between s.delivered and read_from were not read
  s.delivered = e.seq;
  return true;
}

void record_sequencer::unsettle(std::string_view topic) {
  stream_of(topic).numbered = false;
}

uint64_t record_sequencer::resume_after(std::string_view topic) const {
  auto it = streams_.find(topic);
  return it == streams_.end() ? 0 : it->second.delivered;
}

uint64_t record_sequencer::recovery_start(std::string_view topic, const std::string& session,
                                          uint64_t reach) const {
  const uint64_t own = resume_after(topic);
  const uint64_t floor = session_floor(session);
  return own <= floor || own - floor <= reach ? floor : own;
}

uint64_t record_sequencer::session_floor(const std::string& session) const {
  auto it = floors_.find(session);
  return it == floors_.end() ? 0 : it->second;
}

void record_sequencer::covered(const std::string& session, uint64_t from, uint64_t seq) {
  auto& floor = floors_[session];
  if (from <= floor && seq > floor)
    floor = seq;
}

} // namespace paratune
