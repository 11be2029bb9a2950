#include "dialogue/dialogue.hpp"

#include <set>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/llm/model_answer.hpp"
#include "core/llm/prompt_template.hpp"
#include "dialogue/builtin_answer.hpp"
#include "dialogue/tpu_answer.hpp"

namespace paratune {

namespace {

std::string trials_table(const session_facts& f) {
  if (f.summary.trials.empty())
    return "(no trial yet)\n";
  std::string out = "| trial | configuration | status | TFLOP/s/GPU | predicted | note |\n"
                    "|---|---|---|---|---|---|\n";
  for (const auto& r : f.summary.trials)
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", r.index,
                       searched_text(f.summary.job, r.config), to_string(r.status),
                       r.measured() ? fmt::format("{:.1f}", r.tflops_per_gpu) : "-",
                       r.predicted_tflops > 0 ? fmt::format("{:.1f}", r.predicted_tflops) : "-",
                       r.measured() ? "" : r.reason.substr(0, 160));
  return out;
}

std::string analysis_text(const session_facts& f) {
  if (!f.latest)
    return "(none yet)";
  const auto& r = *f.latest;
  std::string out = fmt::format("After trial {}; health {}. Ranked candidates:\n", r.after_trial,
                                r.health);
  for (size_t i = 0; i < r.ranked.size() && i < 5; ++i)
    out += fmt::format("{}. {} expected {:.1f} TFLOP/s/GPU. Why: {}\n", i + 1, r.ranked[i].text,
                       r.ranked[i].predicted_tflops, r.ranked[i].why);
  return out;
}

std::vector<chat_message> prompt_of(const session_facts& f, const std::string& template_text,
                                    const std::vector<wire::dialogue_turn>& before,
                                    const std::string& question, const std::string& facts) {
  const auto& job = f.summary.job;
  auto m = render_prompt(template_text,
                         {{"job", fmt::format("{} ({} on {} GPUs), {}", job.job_name,
                                              job.model.name, job.world_size,
                                              to_string(f.summary.state))},
                          {"history", trials_table(f)},
                          {"analysis", analysis_text(f)},
                          {"facts", facts},
                          {"question", question}});
  // The thread so far, between the instructions and the new question.
  std::vector<chat_message> earlier;
  for (const auto& t : before) {
    earlier.push_back({"user", t.question});
    earlier.push_back({"assistant", t.answer});
  }
  m.insert(m.begin() + 1, earlier.begin(), earlier.end());
  return m;
}

} // namespace

std::vector<std::string> answer_sentences(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    // A full stop, question or exclamation mark ends a sentence where a
    // space follows: "236.5" and "e.g.," stay whole.
    const bool end = (text[i] == '.' || text[i] == '?' || text[i] == '!')
                     && (i + 1 == text.size() || text[i + 1] == ' ');
    if (!end)
      continue;
    if (auto piece = text.substr(start, i + 1 - start);
        piece.find_first_not_of(' ') != std::string::npos)
      out.push_back(piece.substr(piece.find_first_not_of(' ')));
    start = i + 1;
  }
  if (start < text.size() && text.find_first_not_of(' ', start) != std::string::npos)
    out.push_back(text.substr(text.find_first_not_of(' ', start)));
  return out;
}

std::string without_repeats(const std::string& answer,
                            const std::vector<wire::dialogue_turn>& before) {
  if (before.empty())
    return answer;
  std::set<std::string> said;
  for (const auto& t : before)
    for (auto& sentence : answer_sentences(t.answer))
      said.insert(std::move(sentence));
  std::string fresh;
  for (const auto& sentence : answer_sentences(answer))
    if (!said.count(sentence))
      fresh += (fresh.empty() ? "" : " ") + sentence;
  const int last = before.back().turn;
  if (fresh.empty())
    return fmt::format("Nothing new since my answer in turn {}: the session's records hold "
                       "nothing more on this.", last);
  if (fresh.size() == answer.size())
    return answer;
  return fmt::format("Beyond my answer in turn {}: {}", last, fresh);
}

const nlohmann::json& dialogue_reply_schema() {
  static const nlohmann::json schema = {
      {"type", "object"},
      {"properties",
       {{"answer", {{"type", "string"}}},
        {"trials", {{"type", "array"}, {"items", {{"type", "integer"}}}}}}},
      {"required", {"answer"}},
      {"additionalProperties", false}};
  return schema;
}

dialogue_answer answer_question(const session_facts& f, const std::string& question,
                                int thread, const reasoner_settings& settings,
                                const std::string& prompt_template, const chat_fn& chat) {
  if (question.find_first_not_of(" \t\r\n") == std::string::npos)
    throw input_error("the question is empty");
  const auto before = thread > 0 ? f.thread(thread) : std::vector<wire::dialogue_turn>{};
  if (thread > 0 && before.empty())
    throw input_error(fmt::format("thread {} does not exist in session {} (it has {})", thread,
                                  f.summary.session,
                                  f.last_thread() ? fmt::format("threads 1 to {}", f.last_thread())
                                                  : std::string("no thread yet")));
  question_subject previous;
  if (!before.empty())
    previous = {before.back().topic, before.back().keep, before.back().trial};
  const auto subject = read_question(question, before.empty() ? nullptr : &previous);
  dialogue_answer out;
  auto& t = out.turn;
  t.thread = thread > 0 ? thread : f.last_thread() + 1;
  t.turn = int(before.size()) + 1;
  t.question = question;
  t.topic = subject.topic;
  t.keep = subject.keep;
  t.trial = subject.trial;
  const auto builtin =
    f.is_tpu()
      ? tpu_builtin_answer({f.summary.session, f.tpu_job ? &*f.tpu_job : nullptr, *f.tpu_progress},
                           subject)
      : builtin_answer(f, subject);
  t.answer = without_repeats(builtin, before);
  // A TPU session's questions are answered by the built-in reasoner: the
  // dialogue prompt is written around a GPU session's trials and analyses.
  if (settings.mode != reasoner_mode::llm || f.is_tpu())
    return out;
  auto reply = ask_with_guardrails<proposed_reply>(
    prompt_of(f, prompt_template, before, question, builtin), dialogue_reply_schema(), chat,
    [&](const std::string& text) {
      return read_dialogue_reply(text, int(f.summary.trials.size()));
    });
  out.asks = std::move(reply.turns);
  if (reply.accepted) {
    t.answer = without_repeats(reply.accepted->text, before);
    t.by_model = true;
    t.model = settings.model;
  } else {
    t.fallback = reply.fallback;
  }
  return out;
}

} // namespace paratune
