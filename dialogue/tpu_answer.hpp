#pragma once

#include <string>

#include "core/question.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// A TPU session as `ask` reads it: its experiment (none in records older
/// than tpu_session_opened) and its runs so far (session_ledger::tpu_progress).
struct tpu_facts {
  std::string session;
  const wire::tpu_session_opened* job = nullptr;
  wire::tpu_session_end progress;
};

/// The built-in reasoner's answer to a question about a TPU session, from
/// its stored runs only: the fastest mesh and its speedup over the first
/// run, what a run did (mesh, pool, step time or failure, diagnosis, what
/// came next, the run it repeated), the failures, how the step times were
/// obtained, and where the session stands. Questions about the GPU search
/// (why a proposal first, what if a value is kept, why not a value) get the
/// overview and what can be asked of a TPU session.
std::string tpu_builtin_answer(const tpu_facts& f, const question_subject& q);

} // namespace paratune
