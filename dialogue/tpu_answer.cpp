#include "dialogue/tpu_answer.hpp"

#include <cctype>

#include <fmt/format.h>

#include "core/human_units.hpp"
#include "report/tpu_report.hpp"
#include "ledger/tpu_runs.hpp"

namespace paratune {

namespace {

std::string runs_text(const tpu_facts& f) {
  return count_of(static_cast<long long>(f.progress.trials.size()), "run");
}

// "trial 3 (data=4,model=4) at 812.4 ms per step"
std::string measured_run_text(const wire::tpu_trial_row& r) {
  return fmt::format("trial {} (mesh {}) at {:.1f} ms per step", r.trial, r.mesh, r.step_time_ms);
}

std::string sentence(const std::string& text) {
  if (text.empty())
    return text;
  return text.back() == '.' ? text : text + ".";
}

std::string tpu_best(const tpu_facts& f) {
  const auto* best = tpu_row_of(f.progress, f.progress.best_trial);
  if (!best)
    return fmt::format("No run has measured a step time yet ({} so far).", runs_text(f));
  std::string out = fmt::format("The fastest mesh is {}.", measured_run_text(*best));
  const auto* base = tpu_baseline_of(f.progress);
  if (base && base->trial != best->trial)
    out += fmt::format(" That is x{:.2f} over {}, {}.", tpu_speedup(f.progress),
                       tpu_baseline_name(f.progress), measured_run_text(*base));
  else if (base)
    out += " It is " + tpu_baseline_name(f.progress) + ": no other mesh was faster.";
  else if (auto why = tpu_gain_text(f.progress); !why.empty()) {
    why[0] = char(std::toupper(static_cast<unsigned char>(why[0]))); // "The job's own mesh ..."
    out += " " + sentence(why);
  }
  return out;
}

// Who ran failed run `n` again, and how that went.
std::string retries_text(const tpu_facts& f, int n) {
  std::string out;
  for (const auto& r : f.progress.trials) {
    if (r.retry_of != n)
      continue;
    out += fmt::format(" Trial {} ran its mesh again", r.trial);
    if (tpu_run_in_progress(r))
      out += " and is still running.";
    else if (!r.error.empty())
      out += " and failed too: " + sentence(r.error);
    else
      out += fmt::format(" and measured {:.1f} ms per step.", r.step_time_ms);
  }
  return out;
}

std::string tpu_trial(const tpu_facts& f, int n) {
  const auto* r = tpu_row_of(f.progress, n);
  if (!r)
    return fmt::format("The session has no trial {}: it has {}.", n, runs_text(f));
  std::string out = fmt::format("Trial {} ran mesh {}{}", n, r->mesh,
                                r->pool.empty() ? "" : " on pool " + r->pool);
  if (r->retry_of > 0)
    out += fmt::format(", again after trial {} failed on a transient error", r->retry_of);
  out += ".";
  if (tpu_run_in_progress(*r))
    return out + " It is still running.";
  if (!r->error.empty())
    out += " It failed: " + sentence(r->error) + retries_text(f, n);
  else if (!r->stopped.empty())
    out += fmt::format(" It was ended early{}: {}",
                       r->step_time_ms > 0
                         ? fmt::format(" at {:.1f} ms per step", r->step_time_ms)
                         : std::string(),
                       sentence(r->stopped));
  else
    out += fmt::format(" It measured {:.1f} ms per step.", r->step_time_ms);
  if (!r->bottleneck.empty())
    out += " Its diagnosis: " + sentence(r->bottleneck);
  if (!r->next.empty())
    out += " What came next: " + sentence(r->next);
  return out;
}

std::string tpu_failures(const tpu_facts& f, int n) {
  if (n > 0) {
    const auto* r = tpu_row_of(f.progress, n);
    if (r && r->error.empty())
      return fmt::format("Trial {} did not fail.", n) + " " + tpu_trial(f, n);
    return tpu_trial(f, n);
  }
  std::string list;
  int count = 0;
  for (const auto& r : f.progress.trials)
    if (!r.error.empty()) {
      ++count;
      list += fmt::format(" Trial {} (mesh {}): {}", r.trial, r.mesh, sentence(r.error));
    }
  if (count == 0)
    return fmt::format("No run failed ({} so far).", runs_text(f));
  return fmt::format("{} of {} failed.", count, runs_text(f)) + list;
}

std::string tpu_sure(const tpu_facts& f) {
  int measured = 0;
  for (const auto& r : f.progress.trials)
    measured += tpu_run_complete(r) ? 1 : 0;
  if (measured == 0)
    return "No run has measured a step time yet, so nothing here is measured.";
  return fmt::format("Every step time here was measured: the mean of each run's scored steps "
                     "after its compilation step, over {} run{} that went to the end. ",
                     measured, measured == 1 ? "" : "s")
         + tpu_best(f);
}

std::string tpu_overview(const tpu_facts& f) {
  std::string out = "TPU session " + f.session;
  if (f.job)
    out += fmt::format(" ({}, {} on {})", f.job->experiment_name, f.job->model, f.job->hardware);
  out += fmt::format(" is {}: {}", to_string(f.progress.state), runs_text(f));
  out += f.job ? fmt::format(" of a budget of {}.", f.job->budget) : std::string(".");
  if (tpu_row_of(f.progress, f.progress.best_trial))
    out += " " + tpu_best(f);
  if (!f.progress.text.empty())
    out += " Why it ended: " + sentence(f.progress.text);
  return out + " Ask, for example: which mesh is best; what happened in trial 2; what failed; "
               "are you sure.";
}

} // namespace

std::string tpu_builtin_answer(const tpu_facts& f, const question_subject& q) {
  switch (q.topic) {
    case question_topic::best: return tpu_best(f);
    case question_topic::trial:
    case question_topic::stopped: return tpu_trial(f, q.trial);  // a run's row says how it ended
    case question_topic::failures: return tpu_failures(f, q.trial);
    case question_topic::sure: return tpu_sure(f);
    case question_topic::why_first:
    case question_topic::what_if:
    case question_topic::why_not:
    case question_topic::compare:
    case question_topic::overview: return tpu_overview(f);
  }
  return tpu_overview(f);
}

} // namespace paratune
