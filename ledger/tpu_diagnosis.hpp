#pragma once

// Where a TPU run's diagnosis is kept: trial n of session <id> is
// diagnosed as session "<id>.t<n>" (its diagnose_request, the Analyzer's
// diagnosis and the Proposal agent's proposal_set), so that one topic
// prefix covers every run of a session.

#include <optional>
#include <string>
#include <vector>

#include "messages/wire_types.hpp"

namespace paratune {

/// The session a run's diagnosis records are kept under: "<id>.t<n>".
std::string tpu_trial_session(const std::string& id, int trial);

/// The trial whose diagnosis `session` holds, when it is one of `id`'s; 0 otherwise.
int tpu_trial_of_session(const std::string& id, const std::string& session);

/// What the diagnosis agents answered for one run: the first diagnosis and
/// the first proposal set among its records.
struct tpu_diagnosis_answers {
  std::optional<wire::diagnosis> diagnosis;
  std::optional<wire::proposal_set> proposals;
  bool complete() const { return diagnosis && proposals; }
};

tpu_diagnosis_answers tpu_diagnosis_answers_in(const std::vector<wire::envelope>& records);

} // namespace paratune
