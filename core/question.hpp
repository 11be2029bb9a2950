#pragma once

#include <map>
#include <string>

namespace paratune {

/// What a question about a tuning session asks (`paratune ask`). The
/// built-in reasoner answers each from the pool's records; a model, when
/// one is configured, gets the question as it was written.
enum class question_topic {
  why_first,  ///< "why this proposal first?": the latest ranking and its reasons
  what_if,    ///< "what if I keep TP 8?": runs and candidates holding values fixed
  best,       ///< "which configuration is best?"
  trial,      ///< "what happened in trial 3?"
  failures,   ///< "why did trial 3 fail?", "what failed?"
  sure,       ///< "are you sure?": how far the model's predictions were off
  why_not,    ///< "why not mbs 4?": what kept values from being tried (an OOM's lesson)
  stopped,    ///< "why was trial 6 stopped?": the stop's own reason
  compare,    ///< "which should I use, trial 3 or 6?": the two side by side, and the tie rule
  overview,   ///< anything else: where the session stands, and what can be asked
};

const char* to_string(question_topic t);
bool parse_question_topic(const std::string& text, question_topic& out);

/// A question as read: its topic, the values a what-if holds fixed
/// (canonical keys: {"tp": "8"}), and the trial it names.
struct question_subject {
  question_topic topic = question_topic::overview;
  std::map<std::string, std::string> keep;
  int trial = 0;
  int other_trial = 0;  ///< the second trial of "trial 3 or 6", "trials 3 and 6"
};

/// Reads a question in English: keywords for the topic, "TP 8", "tp=8" or
/// "tensor parallel 8" for a value held fixed, "trial 3" or "#3" for a
/// trial, "trial 3 or 6" / "trials 3 and 6" / "#3 vs #6" for two. A follow-up that names nothing of its own ("are you sure?",
/// "why?") is about `previous`'s subject when there is one.
question_subject read_question(const std::string& text, const question_subject* previous);

} // namespace paratune
