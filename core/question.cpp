#include "core/question.hpp"

#include <algorithm>
#include <tuple>
#include <utility>
#include <cctype>
#include <vector>

#include "core/enum_words.hpp"
#include "core/training_config.hpp"

namespace paratune {

namespace {

/// Lower-case words and numbers; "tp=8" gives "tp", "8"; "#3" gives "#3".
std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || ch == '_' || ch == '#' || ch == '.') {
      word += char(std::tolower(c));
    } else if (!word.empty()) {
      out.push_back(word);
      word.clear();
    }
  }
  if (!word.empty())
    out.push_back(word);
  for (auto& w : out)  // a sentence's full stop is not part of its last word
    while (!w.empty() && w.back() == '.')
      w.pop_back();
  return out;
}

bool has(const std::vector<std::string>& words, std::initializer_list<const char*> any) {
  for (const auto* a : any)
    if (std::find(words.begin(), words.end(), a) != words.end())
      return true;
  return false;
}

bool is_number(const std::string& w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(
                                                                        static_cast<unsigned char>(c)); });
}

/// Long names people use for the parallel degrees.
const std::map<std::string, std::string>& spelled_keys() {
  static const std::map<std::string, std::string> names = {
    {"tensor", "tp"}, {"pipeline", "pp"}, {"context", "cp"}, {"expert", "ep"},
    {"micro", "mbs"}, {"microbatch", "mbs"}, {"recomputation", "recompute"}};
  return names;
}

/// "tp 8", "tp=8", "tensor parallel 8", "tensor parallelism of 8".
std::map<std::string, std::string> values_held(const std::vector<std::string>& w) {
  std::map<std::string, std::string> keep;
  for (size_t i = 0; i < w.size(); ++i) {
    std::string key;
    if (find_config_key(w[i]) && w[i] != "seq" && w[i] != "gbs")
      key = w[i];
    else if (const auto s = spelled_keys().find(w[i]); s != spelled_keys().end())
      key = s->second;
    if (key.empty())
      continue;
    size_t j = i + 1;
    while (j < w.size() && j <= i + 3 && (w[j] == "parallel" || w[j] == "parallelism"
                                          || w[j] == "batch" || w[j] == "size" || w[j] == "of"
                                          || w[j] == "at" || w[j] == "degree" || w[j] == "to"))
      ++j;
    if (j < w.size() && (is_number(w[j]) || key == "recompute"))
      keep[key] = w[j];
  }
  return keep;
}

/// The trial number at w[i] ("#3", or "trial 3" / "trials 3" / "run 3"),
/// and how many words it took; 0 when there is none.
std::pair<int, size_t> trial_at(const std::vector<std::string>& w, size_t i) {
  const auto small = [](const std::string& n) { return is_number(n) && n.size() < 7; };
  if (w[i].size() > 1 && w[i][0] == '#' && small(w[i].substr(1)))
    return {std::stoi(w[i].substr(1)), 1};
  if ((w[i] == "trial" || w[i] == "trials" || w[i] == "run" || w[i] == "runs")
      && i + 1 < w.size() && small(w[i + 1]))
    return {std::stoi(w[i + 1]), 2};
  return {0, 0};
}

/// The trials a question names: "trial 3", and a second one after "or",
/// "and", "vs" ("trial 3 or 6", "trials 3 and 6", "#3 vs trial 6").
std::pair<int, int> trials_named(const std::vector<std::string>& w) {
  for (size_t i = 0; i < w.size(); ++i) {
    const auto [first, used] = trial_at(w, i);
    if (first == 0)
      continue;
    const size_t j = i + used;
    if (j + 1 < w.size() && (w[j] == "or" || w[j] == "and" || w[j] == "vs" || w[j] == "versus")) {
      if (is_number(w[j + 1]) && w[j + 1].size() < 7)
        return {first, std::stoi(w[j + 1])};
      if (const auto [second, _] = trial_at(w, j + 1); second > 0)
        return {first, second};
    }
    return {first, 0};
  }
  return {0, 0};
}

} // namespace

const char* to_string(question_topic t) {
  switch (t) {
    case question_topic::why_first: return "why_first";
    case question_topic::what_if: return "what_if";
    case question_topic::best: return "best";
    case question_topic::trial: return "trial";
    case question_topic::failures: return "failures";
    case question_topic::sure: return "sure";
    case question_topic::why_not: return "why_not";
    case question_topic::stopped: return "stopped";
    case question_topic::compare: return "compare";
    case question_topic::overview: return "overview";
  }
  return "overview";
}

bool parse_question_topic(const std::string& text, question_topic& out) {
  return parse_word_of(text,
                       {question_topic::why_first, question_topic::what_if, question_topic::best,
                        question_topic::trial, question_topic::failures, question_topic::sure,
                        question_topic::why_not, question_topic::stopped,
                        question_topic::compare, question_topic::overview},
                       out);
}

question_subject read_question(const std::string& text, const question_subject* previous) {
  const auto w = words_of(text);
  question_subject q;
  q.keep = values_held(w);
  std::tie(q.trial, q.other_trial) = trials_named(w);
  if (q.other_trial > 0 && q.other_trial != q.trial)
    q.topic = question_topic::compare;
  else if (has(w, {"sure", "confident", "certain", "confidence", "trust", "accurate"}))
    q.topic = question_topic::sure;
  else if (!q.keep.empty() && has(w, {"why"}) && has(w, {"not", "never", "no", "didn't", "didn",
                                                         "skip", "skipped", "avoid", "avoided"}))
    q.topic = question_topic::why_not;
  else if (!q.keep.empty() && has(w, {"if", "keep", "kept", "hold", "fix", "fixed", "stay",
                                      "stick", "with", "instead"}))
    q.topic = question_topic::what_if;
  else if (has(w, {"fail", "failed", "fails", "failure", "failures", "crash", "crashed", "oom",
                   "error"}))
    q.topic = question_topic::failures;
  else if (q.trial > 0 && has(w, {"stopped", "stop", "stops", "ended", "end", "early", "cut",
                                  "killed", "halted"}))
    q.topic = question_topic::stopped;
  else if (q.trial > 0)
    q.topic = question_topic::trial;
  else if (has(w, {"first", "next", "proposal", "proposals", "propose", "proposed", "rank",
                   "ranked", "ranking", "order"}))
    q.topic = question_topic::why_first;
  else if (has(w, {"best", "fastest", "winner", "optimum", "optimal", "recommend"}))
    q.topic = question_topic::best;
  else if (previous && q.keep.empty() && q.trial == 0)
    return *previous;  // "why?", "go on": about what came before
  if (q.topic == question_topic::sure && previous && q.keep.empty() && q.trial == 0) {
    q.keep = previous->keep;
    q.trial = previous->trial;
  }
  return q;
}

} // namespace paratune
