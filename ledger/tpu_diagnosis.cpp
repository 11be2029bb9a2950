#include "ledger/tpu_diagnosis.hpp"

#include <charconv>

#include "messages/codec.hpp"

namespace paratune {

std::string tpu_trial_session(const std::string& id, int trial) {
  return id + ".t" + std::to_string(trial);
}

int tpu_trial_of_session(const std::string& id, const std::string& session) {
  const auto prefix = id + ".t";
  if (!session.starts_with(prefix) || session.size() == prefix.size())
    return 0;
  int n = 0;
  const char* first = session.data() + prefix.size();
  const char* last = session.data() + session.size();
  const auto [end, ec] = std::from_chars(first, last, n);
  return ec == std::errc{} && end == last && n > 0 ? n : 0;
}

tpu_diagnosis_answers tpu_diagnosis_answers_in(const std::vector<wire::envelope>& records) {
  tpu_diagnosis_answers a;
  for (const auto& e : records) {
    if (e.type == wire::type_name<wire::diagnosis>() && !a.diagnosis)
      a.diagnosis = wire::body_of<wire::diagnosis>(e);
    else if (e.type == wire::type_name<wire::proposal_set>() && !a.proposals)
      a.proposals = wire::body_of<wire::proposal_set>(e);
  }
  return a;
}

} // namespace paratune
