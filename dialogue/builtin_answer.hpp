#pragma once

#include <string>

#include "core/question.hpp"
#include "dialogue/session_facts.hpp"

namespace paratune {

/// The built-in reasoner's answer to a question about a session, from its
/// stored records only: the analyses' ranking and reasons, the trials'
/// measurements, the failure analyst's diagnoses and the model's
/// prediction errors. Every number it states is one the pool holds, or a
/// ratio of two of them.
std::string builtin_answer(const session_facts& facts, const question_subject& q);

} // namespace paratune
