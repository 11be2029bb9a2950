#include "dialogue/session_facts.hpp"

#include "messages/codec.hpp"

namespace paratune {

const trial_row* session_facts::trial(int n) const {
  for (const auto& r : summary.trials)
    if (r.index == n)
      return &r;
  return nullptr;
}

const decision* session_facts::decision_of(int n) const {
  for (const auto& d : chain)
    if (d.trial == n)
      return &d;
  return nullptr;
}

std::vector<wire::dialogue_turn> session_facts::thread(int number) const {
  std::vector<wire::dialogue_turn> out;
  for (const auto& t : turns)
    if (t.thread == number)
      out.push_back(t);
  return out;
}

int session_facts::last_thread() const {
  int n = 0;
  for (const auto& t : turns)
    n = std::max(n, t.thread);
  return n;
}

session_facts facts_of(const std::string& session, const std::vector<wire::envelope>& history) {
  session_facts f;
  f.summary = summarize(session, history);
  f.chain = decision_chain(history);
  for (const auto& e : history) {
    if (e.type == wire::type_name<wire::analysis_report>()) {
      auto r = wire::body_of<wire::analysis_report>(e);
      if (r.error.empty() && !r.ranked.empty())
        f.latest = std::move(r);
    } else if (e.type == wire::type_name<wire::dialogue_turn>()) {
      f.turns.push_back(wire::body_of<wire::dialogue_turn>(e));
    }
  }
  return f;
}

std::string searched_text(const wire::session_opened& job, const wire::config_map& c) {
  std::string out;
  for (const auto& [key, value] : c)
    if (job.search.empty() || job.search.count(key))
      out += (out.empty() ? "" : " ") + key + "=" + value;
  return out;
}

} // namespace paratune
