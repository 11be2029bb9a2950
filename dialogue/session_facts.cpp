#include "dialogue/session_facts.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "messages/codec.hpp"
#include "report/readable_ledger.hpp"

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

const trial_row* session_facts::last_ran() const {
  const trial_row* out = nullptr;
  for (const auto& r : summary.trials)
    if (r.status != trial_status::skipped && (!out || r.index > out->index))
      out = &r;
  return out;
}

std::vector<const trial_row*> session_facts::retries_of(int n) const {
  std::vector<const trial_row*> out;
  for (const auto& r : summary.trials)
    if (r.retry_of == n)
      out.push_back(&r);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->index < b->index; });
  return out;
}

std::string session_facts::analysis_name(const wire::analysis_report& a) const {
  if (const auto it = trials_of_request.find(a.request);
      it != trials_of_request.end() && !it->second.empty())
    return "trial " + std::to_string(it->second.front()) + "'s analysis";
  return a.after_trial > 0 ? "the analysis after trial " + std::to_string(a.after_trial)
                           : "the first analysis";
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
  const auto ledger = readable_ledger_of({}, history);
  session_facts f;
  f.summary = summarize(ledger);
  f.summary.session = session; // also when the history is empty
  f.chain = decision_chain(ledger);
  f.latest = ledger.latest_ranked_report();
  for (int n = 1; n <= ledger.latest_request(); ++n)
    if (const auto* e = ledger.report_for(n)) {
      auto r = wire::body_of<wire::analysis_report>(*e);
      if (r.error.empty() && !r.ranked.empty())
        f.analyses.push_back(std::move(r));
    }
  for (const auto& [number, t] : ledger.trials())  // in trial order
    if (t.proposal && t.proposal->request > 0)
      f.trials_of_request[t.proposal->request].push_back(number);
  f.turns = ledger.dialogue();
  if (const auto* tpu = ledger.tpu_job())
    f.tpu_job = *tpu;
  f.tpu_progress = ledger.tpu_progress();
  try {
    f.outcomes = ledger.outcomes();
  } catch (const input_error&) {
    // A stored configuration that does not parse: the answers that need
    // the memory screen's lesson go without it.
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
