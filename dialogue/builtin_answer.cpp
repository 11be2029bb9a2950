#include "dialogue/builtin_answer.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <deque>
#include <utility>

#include <fmt/format.h>

#include "core/best_choice.hpp"
#include "core/human_units.hpp"
#include "core/model_flops_utilization.hpp"
#include "core/perf/perf_model.hpp"
#include "core/tuning/memory_screen.hpp"
#include "messages/conversions.hpp"
#include "report/chart_points.hpp"

namespace paratune {

namespace {

/// A configuration by the searched keys that changed across the session's
/// trials, in canonical order (the parallel sizes first): the rest are the
/// same in every trial and say nothing. Before two trials differ, by every
/// searched key.
std::string config_text(const session_facts& f, const wire::config_map& c) {
  const auto& job = f.summary.job;
  const auto varied = varying_keys(f.summary);
  std::string out;
  for (const auto& key : config_keys())
    if (std::find(varied.begin(), varied.end(), key) != varied.end() && c.count(key)
        && (job.search.empty() || job.search.count(key)))
      out += (out.empty() ? "" : " ") + key + "=" + c.at(key);
  return out.empty() ? searched_text(job, c) : out;
}

std::string run_text(const session_facts& f, const trial_row& r) {
  return fmt::format("trial {} ({}) at {:.1f} TFLOP/s/GPU", r.index, config_text(f, r.config),
                     r.tflops_per_gpu);
}

/// "12% below" / "the same as" / "4% above" the reference.
std::string relative(double value, double reference) {
  if (reference <= 0)
    return "";
  const double pct = 100 * (value / reference - 1);
  if (std::abs(pct) < 0.05)
    return "the same as";
  return fmt::format("{:.1f}% {}", std::abs(pct), pct < 0 ? "below" : "above");
}

const trial_row* trial_with(const session_facts& f, const wire::config_map& c) {
  for (const auto& r : f.summary.trials)
    if (r.config == c)
      return &r;
  return nullptr;
}

bool holds(const wire::config_map& c, const std::map<std::string, std::string>& keep) {
  for (const auto& [key, value] : keep) {
    const auto it = c.find(key);
    if (it == c.end() || it->second != value)
      return false;
  }
  return true;
}

/// "tp=1 and pp=1": the held values in the keys' canonical order (the
/// parallel sizes first), as the question is likely to have put them.
std::string keep_text(const std::map<std::string, std::string>& keep) {
  std::string out;
  for (const auto& key : config_keys())
    if (const auto it = keep.find(key); it != keep.end())
      out += (out.empty() ? "" : " and ") + key + "=" + it->second;
  for (const auto& [key, value] : keep)
    if (!find_config_key(key))
      out += (out.empty() ? "" : " and ") + key + "=" + value;
  return out;
}

/// `text` with its first letter in upper case, to open a sentence.
std::string capitalised(std::string text) {
  if (!text.empty())
    text[0] = char(std::toupper(static_cast<unsigned char>(text[0])));
  return text;
}

/// "why this proposal first?" before any trial ran: the latest analysis's
/// ranking, what the next trial will run.
std::string why_first_before_any_run(const session_facts& f) {
  if (!f.latest)
    return "No analysis has ranked candidates yet: the first trial runs the job's initial "
           "configuration (or the model's best, with start: predicted_best).";
  const auto& r = *f.latest;
  const auto& first = r.ranked.front();
  std::string out = fmt::format(
    "No trial has run yet. The latest analysis (after trial {}) moved from {} and found its "
    "health {}{}. Its first proposal: {} ({} candidate), expected at {:.1f} TFLOP/s/GPU. Why: {}.",
    r.after_trial,
    r.base_trial > 0 ? "trial " + std::to_string(r.base_trial) : "the initial configuration",
    r.health, r.directive.empty() || r.directive == "NONE" ? "" : " (directive " + r.directive + ")",
    first.text, to_string(first.group), first.predicted_tflops, first.why);
  if (r.ranked.size() > 1) {
    const auto& second = r.ranked[1];
    out += fmt::format(" Second: {} ({} candidate), expected at {:.1f}: {}.", second.text,
                       to_string(second.group), second.predicted_tflops, second.why);
  }
  if (!r.rejected.empty())
    out += fmt::format(" The guards rejected {} candidates, for example {} ({}).",
                       r.rejected.size(), r.rejected.front().text, r.rejected.front().rejected);
  return out;
}

/// The analysis that ranked trial `n`'s configuration before it ran (the
/// latest one after an earlier trial), and its rank from 0; none when no
/// stored analysis did.
std::pair<const wire::analysis_report*, std::size_t> ranking_before(const session_facts& f,
                                                                    const trial_row& r) {
  for (auto it = f.analyses.rbegin(); it != f.analyses.rend(); ++it) {
    if (it->after_trial >= r.index)
      continue;
    for (std::size_t i = 0; i < it->ranked.size(); ++i)
      if (it->ranked[i].config == r.config)
        return {&*it, i};
  }
  return {nullptr, 0};
}

/// `text` without a closing full stop, to be followed by more words.
std::string open_ended(std::string text) {
  while (!text.empty() && (text.back() == '.' || text.back() == ' '))
    text.pop_back();
  return text;
}

/// ", expected at 170.0 TFLOP/s/GPU", unless `why` already gives that
/// figure (the model's reasons often do) or there is no prediction.
std::string expected_text(const std::string& why, double predicted_tflops) {
  if (predicted_tflops <= 0)
    return "";
  const auto figure = fmt::format("{:.1f}", predicted_tflops);
  if (why.find(figure) != std::string::npos)
    return "";
  return ", expected at " + figure + " TFLOP/s/GPU";
}

/// What a trial that ran gave: its throughput against the prediction, or
/// how it ended.
std::string result_text(const trial_row& r) {
  if (r.measured())
    return fmt::format(" It measured {:.1f} TFLOP/s/GPU{}.", r.tflops_per_gpu,
                       r.predicted_tflops > 0
                         ? ", " + relative(r.tflops_per_gpu, r.predicted_tflops)
                             + " the prediction"
                         : "");
  return fmt::format(" It {}{}.", to_string(r.status),
                     r.reason.empty() ? "" : ": " + open_ended(r.reason));
}

/// "why this proposal first?": why the most recent trial that ran was
/// chosen, from its proposal and the analysis that ranked it, and what it
/// gave. A proposal made after it that has not run is named as such, last.
std::string why_first(const session_facts& f) {
  const trial_row* ran = f.last_ran();
  if (!ran)
    return why_first_before_any_run(f);
  const auto* d = f.decision_of(ran->index);
  std::string out = fmt::format("The most recent trial that ran is trial {} ({}).", ran->index,
                                config_text(f, ran->config));
  if (!d || !d->proposed) {
    out += " It ran the job's initial configuration: no analysis chose it.";
  } else {
    out += fmt::format(" It was chosen as \"{}\" because {}{}{}.", open_ended(d->change),
                       open_ended(d->why),
                       d->retry_of > 0 ? fmt::format(" (a retry of trial {})", d->retry_of) : "",
                       expected_text(d->why, d->predicted_tflops));
    if (const auto [a, rank] = ranking_before(f, *ran); a)
      out += fmt::format(" The analysis after trial {} ranked it {} of {}, moving from {} with "
                         "health {}.", a->after_trial, rank + 1, a->ranked.size(),
                         a->base_trial > 0 ? "trial " + std::to_string(a->base_trial)
                                           : "the initial configuration",
                         a->health);
  }
  out += result_text(*ran);
  if (f.latest && f.latest->after_trial >= ran->index
      && !trial_with(f, f.latest->ranked.front().config))
    out += fmt::format(" After it, the analysis after trial {} proposed {}; that has not run.",
                       f.latest->after_trial, f.latest->ranked.front().text);
  return out;
}

/// Whether the job lets `key` take `value`; the reason when not.
std::string outside_space(const session_facts& f, const std::string& key,
                          const std::string& value) {
  const auto& job = f.summary.job;
  const auto space = job.search.find(key);
  if (space == job.search.end()) {
    const auto fixed = job.initial.find(key);
    if (fixed != job.initial.end() && fixed->second != value)
      return fmt::format("{} is fixed at {} in this job, so no trial can hold {}={}.", key,
                         fixed->second, key, value);
    return "";
  }
  if (std::find(space->second.begin(), space->second.end(), value) != space->second.end())
    return "";
  std::string values;
  for (const auto& v : space->second)
    values += (values.empty() ? "" : ", ") + v;
  return fmt::format("{}={} is not in the search space ({}: {}).", key, value, key, values);
}

std::string what_if(const session_facts& f, const std::map<std::string, std::string>& keep) {
  for (const auto& [key, value] : keep)
    if (auto why = outside_space(f, key, value); !why.empty())
      return why;
  const auto held = keep_text(keep);
  const auto& best = f.summary.best;
  const trial_row* best_held = nullptr;
  int ran = 0;
  std::vector<const decision*> failed;
  for (const auto& r : f.summary.trials) {
    if (!holds(r.config, keep))
      continue;
    ++ran;
    if (r.measured() && (!best_held || r.tflops_per_gpu > best_held->tflops_per_gpu))
      best_held = &r;
    if (r.status == trial_status::failed)
      if (const auto* d = f.decision_of(r.index))
        failed.push_back(d);
  }
  std::string out;
  if (best_held && best && best_held->index == best->index) {
    out = fmt::format("The session's best run already holds {}: {}.", held, run_text(f, *best));
  } else if (best_held) {
    out = fmt::format("Holding {}: {} ran with it; the best, {}, is {} the session's best "
                      "({}).", held, count_of(ran, "trial"), run_text(f, *best_held),
                      relative(best_held->tflops_per_gpu, best ? best->tflops_per_gpu : 0),
                      best ? run_text(f, *best) : "none");
  } else {
    out = fmt::format("No measured trial holds {}{}.", held,
                      ran ? fmt::format(" ({} ran with it and measured nothing)", ran) : "");
  }
  for (const auto* d : failed)
    out += fmt::format(" Trial {} with it failed: {}.", d->trial,
                       d->diagnosed ? d->diagnosis : d->outcome);
  if (f.latest) {
    const auto& ranked = f.latest->ranked;
    for (size_t i = 0; i < ranked.size(); ++i)
      if (holds(ranked[i].config, keep)) {
        out += fmt::format(" The latest analysis's best candidate that holds it is {} (rank {} of "
                           "{}), expected at {:.1f} TFLOP/s/GPU: {}.", ranked[i].text, i + 1,
                           ranked.size(), ranked[i].predicted_tflops, ranked[i].why);
        return out;
      }
    for (const auto& s : f.latest->rejected)
      if (holds(s.config, keep)) {
        out += fmt::format(" The latest analysis rejected {} for it: {}.", s.text, s.rejected);
        return out;
      }
    out += " The latest analysis had no candidate that holds it.";
  }
  return out;
}

/// What the session's OOMs say of its best run (or its initial
/// configuration) with `keep` set: the lesson the memory screen learned,
/// recomputed from the stored trials as every analysis computes it.
std::optional<memory_screen::oom_lesson> lesson_for_held(
  const session_facts& f, const std::map<std::string, std::string>& keep) {
  const auto& job = f.summary.job;
  const auto ctx = wire::context_of(job);
  std::deque<perf_prediction> predictions;  // references stay valid as it grows
  const memory_screen screen(f.outcomes, [&](const training_config& c) -> const perf_prediction& {
    return predictions.emplace_back(predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec));
  });
  auto held = f.summary.best ? wire::from_wire(f.summary.best->config) : ctx.initial;
  for (const auto& [key, value] : keep)
    set_value(held, key, value);
  return screen.oom_lesson_for(held);
}

/// What the memory screen says of the best run (or the initial
/// configuration) with `keep` set, recomputed from the job record as every
/// analysis screens it: why it cannot fit, or nothing. A candidate it
/// refuses is never ranked, so no analysis names it.
std::optional<std::string> screened_for_held(const session_facts& f,
                                             const std::map<std::string, std::string>& keep) {
  const auto& job = f.summary.job;
  const auto ctx = wire::context_of(job);
  std::deque<perf_prediction> predictions;
  const auto predictor = [&](const training_config& c) -> const perf_prediction& {
    return predictions.emplace_back(predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec));
  };
  const memory_screen screen(f.outcomes, predictor);
  auto held = f.summary.best ? wire::from_wire(f.summary.best->config) : ctx.initial;
  for (const auto& [key, value] : keep)
    set_value(held, key, value);
  return screen.check(held, predictor(held));
}

/// The analyses that ranked a candidate holding `keep`: the first that
/// did, and the latest when that is another. Each names its best-ranked
/// candidate holding the values, with its prediction and risk of running
/// out of memory (the records' figures), and what that analysis launched
/// instead.
std::string ranked_holding(const session_facts& f,
                           const std::map<std::string, std::string>& keep,
                           const std::string& held) {
  struct hit {
    const wire::analysis_report* analysis;
    size_t rank = 0;
    int count = 0;
  };
  std::vector<hit> hits;
  for (const auto& a : f.analyses) {
    hit h{&a};
    for (size_t i = 0; i < a.ranked.size(); ++i)
      if (holds(a.ranked[i].config, keep) && h.count++ == 0)
        h.rank = i;
    if (h.count > 0)
      hits.push_back(h);
  }
  if (hits.empty())
    return "";
  const auto say = [&](const hit& h) {
    const auto& a = *h.analysis;
    const auto& c = a.ranked[h.rank];
    std::string out = fmt::format(" {} ranked {} as candidate {} of {} ({}), expected at {:.1f} "
                                  "TFLOP/s/GPU", capitalised(f.analysis_name(a)), held,
                                  h.rank + 1, a.ranked.size(), open_ended(c.text),
                                  c.predicted_tflops);
    if (c.predicted_peak_mib > 0)
      out += fmt::format(" with a predicted peak of {:.0f} MiB", c.predicted_peak_mib);
    if (c.oom_risk > 0)
      out += fmt::format(" and a {:.0f}% risk of running out of memory", 100 * c.oom_risk);
    out += ".";
    if (h.count > 1)
      out += fmt::format(" {} more of its candidates held {}, ranked lower.", h.count - 1, held);
    const auto launched = f.trials_of_request.find(a.request);
    if (launched != f.trials_of_request.end() && !launched->second.empty()) {
      std::string list;
      const auto& trials = launched->second;
      for (size_t i = 0; i < trials.size(); ++i) {
        const auto* r = f.trial(trials[i]);
        std::string rank;
        for (size_t k = 0; r && k < a.ranked.size(); ++k)
          if (a.ranked[k].config == r->config) {
            rank = fmt::format(" (its candidate {})", k + 1);
            break;
          }
        list += (i == 0 ? "" : i + 1 == trials.size() ? " and " : ", ")
                + std::to_string(trials[i]) + rank;
      }
      out += fmt::format(" It launched {} {} instead.", trials.size() == 1 ? "trial" : "trials",
                         list);
    }
    return out;
  };
  std::string out = say(hits.front());
  if (hits.size() > 1)
    out += say(hits.back());
  return out;
}

/// The first analysis that refused a candidate holding `keep`, and why.
std::string refused_holding(const session_facts& f,
                            const std::map<std::string, std::string>& keep,
                            const std::string& held) {
  for (const auto& a : f.analyses) {
    const wire::suggestion_wire* refused = nullptr;
    int count = 0;
    for (const auto& s : a.rejected)
      if (holds(s.config, keep) && ++count == 1)
        refused = &s;
    if (refused)
      return fmt::format(" {} refused {} candidate(s) holding {}, for example {}: {}.",
                         capitalised(f.analysis_name(a)), count, held, open_ended(refused->text),
                         open_ended(refused->rejected));
  }
  return "";
}

/// "why not mbs 4?", "why did you never try tp=1 pp=1?": the trials that
/// held the values and how they ended, the OOM lesson that covers the best
/// run with them (it names the trial it learned from and the raised
/// estimate), and the analyses that ranked or refused candidates holding
/// them, each named by the trial it launched.
std::string why_not(const session_facts& f, const std::map<std::string, std::string>& keep) {
  for (const auto& [key, value] : keep)
    if (auto why = outside_space(f, key, value); !why.empty())
      return why;
  const auto held = keep_text(keep);
  std::string out;
  int measured = 0, ran = 0;
  for (const auto& r : f.summary.trials) {
    if (!holds(r.config, keep))
      continue;
    ran += r.status != trial_status::skipped;
    if (r.measured())
      ++measured;
    else if (r.status == trial_status::failed && r.failure == failure_kind::oom)
      out += fmt::format(" Trial {} ({}) held {} and ran out of memory.", r.index,
                         config_text(f, r.config), held);
  }
  if (measured > 0)
    out += fmt::format(" {} measured trial(s) held {}.", measured, held);
  else if (ran == 0)
    out += fmt::format(" No trial held {}.", held);
  if (const auto lesson = lesson_for_held(f, keep))
    out += fmt::format(" With {}, the best run needs at least the memory of trial {}: {}.", held,
                       lesson->trial, lesson->text);
  const auto ranked = ranked_holding(f, keep, held);
  const auto refused = refused_holding(f, keep, held);
  std::optional<std::string> screened;
  if (ranked.empty() && refused.empty() && !lesson_for_held(f, keep)) {
    try {
      screened = screened_for_held(f, keep);
    } catch (const std::exception&) {
      // values the model cannot predict with: nothing to say of the screen
    }
    if (screened)
      out += fmt::format(" No analysis ranked a candidate holding {}: the memory screen refuses "
                         "the best run with it before it is ranked ({}).", held,
                         open_ended(*screened));
  }
  if (ranked.empty() && refused.empty() && ran == 0 && !screened && !lesson_for_held(f, keep))
    return fmt::format("No trial held {}, and no analysis ranked or refused a candidate holding "
                       "it: the model did not rank any high enough to consider.", held);
  out += ranked + refused;
  return out.substr(1);
}

std::string best_answer(const session_facts& f) {
  const auto& s = f.summary;
  if (!s.best)
    return fmt::format("No trial has measured a throughput yet ({} so far).",
                       count_of(static_cast<long long>(s.trials.size()), "trial"));
  std::string out = fmt::format("The best configuration is {} (MFU {}, peak memory {:.0f} "
                                "MiB).", run_text(f, *s.best), mfu_text(s.best->mfu),
                                s.best->peak_memory_mib);
  if (s.first_success && s.first_success->index != s.best->index)
    out += fmt::format(" That is {} the first measured run, {}.",
                       relative(s.best->tflops_per_gpu, s.first_success->tflops_per_gpu),
                       run_text(f, *s.first_success));
  if (!s.tie_text.empty())
    out += " " + s.tie_text;
  return out;
}

/// Why the early stopper (or the session's end) stopped a trial, in words;
/// the record's own reason follows it.
const char* stop_words(stop_reason r) {
  switch (r) {
    case stop_reason::stable: return "its throughput had settled";
    case stop_reason::cannot_beat_incumbent: return "it could no longer beat the best run";
    case stop_reason::failure: return "its log showed a failure";
    case stop_reason::hang: return "it printed nothing for too long";
    case stop_reason::wall_clock: return "it reached the job's wall-clock limit";
    case stop_reason::cancelled: return "its session was cancelled";
    case stop_reason::none: break;
  }
  return "it was stopped";
}

/// "why was trial 6 stopped?": the stop's own reason, as its result
/// records it, and what it had measured by then.
std::string stopped_answer(const session_facts& f, int n) {
  const auto* r = f.trial(n);
  if (!r)
    return fmt::format("The session has no trial {}: it has {}.", n,
                       count_of(static_cast<long long>(f.summary.trials.size()), "trial"));
  if (r->status != trial_status::stopped) {
    std::string out = fmt::format("Trial {} was not stopped: it {}", n, to_string(r->status));
    if (r->measured())
      return out + fmt::format(", running to its end at {:.1f} TFLOP/s/GPU.", r->tflops_per_gpu);
    return out + (r->reason.empty() ? "." : ": " + open_ended(r->reason) + ".");
  }
  std::string out = fmt::format("Trial {} ({}) was stopped because {}", n,
                                config_text(f, r->config), stop_words(r->stop));
  out += r->reason.empty() ? "." : fmt::format("; its record says: {}.", open_ended(r->reason));
  if (r->measured())
    out += fmt::format(" By then it had measured {:.1f} TFLOP/s/GPU over {} (MFU {}, peak "
                       "memory {:.0f} MiB), the figure the session scores it by.",
                       r->tflops_per_gpu, count_of(r->iterations_scored, "scored iteration"),
                       mfu_text(r->mfu), r->peak_memory_mib);
  else if (r->stop == stop_reason::cancelled)
    out += " Its partial measurements are not scored.";
  return out;
}

/// "which should I use, trial 3 or 6?": the two side by side (throughput,
/// peak memory, the keys where they differ), then the answer by the rule
/// the report uses (core/best_choice): the faster, unless they measured
/// within noise; then the one with more memory headroom, then the simpler.
std::string compare_answer(const session_facts& f, int a, int b) {
  const auto* ra = f.trial(a);
  const auto* rb = f.trial(b);
  if (!ra || !rb)
    return fmt::format("The session has no trial {}: it has {}.", ra ? b : a,
                       count_of(static_cast<long long>(f.summary.trials.size()), "trial"));
  std::string out;
  for (const auto* r : {ra, rb}) {
    if (r->measured())
      out += fmt::format(" Trial {} ({}) measured {:.1f} TFLOP/s/GPU with a peak of {:.0f} MiB.",
                         r->index, config_text(f, r->config), r->tflops_per_gpu,
                         r->peak_memory_mib);
    else
      out += fmt::format(" Trial {} ({}) measured nothing: it {}{}.", r->index,
                         config_text(f, r->config), to_string(r->status),
                         r->reason.empty() ? "" : ": " + open_ended(r->reason));
  }
  std::string differ;
  for (const auto& key : config_keys()) {
    const auto va = value_of(ra->config, key), vb = value_of(rb->config, key);
    if (va != vb)
      differ += fmt::format("{}{} ({} in trial {}, {} in trial {})", differ.empty() ? "" : ", ",
                            key, va, a, vb, b);
  }
  out += differ.empty() ? " They ran the same configuration."
                        : " They differ in " + differ + ".";
  if (!ra->measured() || !rb->measured()) {
    const auto* ok = ra->measured() ? ra : rb->measured() ? rb : nullptr;
    out += ok ? fmt::format(" Use trial {}: it is the one that measured.", ok->index)
              : " Neither measured a throughput to choose by.";
    return out.substr(1);
  }
  const auto* faster = ra->tflops_per_gpu >= rb->tflops_per_gpu ? ra : rb;
  const auto* slower = faster == ra ? rb : ra;
  out += fmt::format(" Trial {} measured {} trial {}", faster->index,
                     relative(faster->tflops_per_gpu, slower->tflops_per_gpu), slower->index);
  const double lower_peak = slower->peak_memory_mib - faster->peak_memory_mib;
  if (faster->peak_memory_mib > 0 && slower->peak_memory_mib > 0)
    out += std::abs(lower_peak) < 0.5
             ? ", at the same peak memory."
             : fmt::format(" and peaked {:.0f} MiB {}.", std::abs(lower_peak),
                           lower_peak > 0 ? "lower" : "higher");
  else
    out += ".";
  std::vector<measured_option> two;
  for (const auto* r : {ra, rb})
    two.push_back({r->index, r->tflops_per_gpu, r->peak_memory_mib, r->memory_limit_mib,
                   non_default_keys(r->config)});
  const auto choice = choose_best(two);
  if (const auto tie = tie_sentence(choice, two); !tie.empty())
    out += " " + tie + fmt::format(" Use trial {}.", choice.trial);
  else
    out += fmt::format(" That is more than a measurement's noise ({:g}%): use trial {}.",
                       100 * throughput_noise, choice.trial);
  const auto& best = f.summary.best;
  if (best && best->index != a && best->index != b)
    out += fmt::format(" The session's answer is neither: it is {}.", run_text(f, *best))
           + (f.summary.tie_text.empty() ? "" : " " + f.summary.tie_text);
  return out.substr(1);
}

/// What happened after failed trial `n`: its retries and how they ended,
/// or that none ran and which trial came next.
std::string after_failure(const session_facts& f, int n) {
  const auto retries = f.retries_of(n);
  if (retries.empty()) {
    const trial_row* next = nullptr;
    for (const auto& r : f.summary.trials)
      if (r.index > n && (!next || r.index < next->index))
        next = &r;
    if (!next)
      return " It was not retried, and no trial ran after it.";
    return fmt::format(" It was not retried; the next trial, {} ({}),{}", next->index,
                       config_text(f, next->config),
                       next->measured()
                         ? fmt::format(" measured {:.1f} TFLOP/s/GPU.", next->tflops_per_gpu)
                         : fmt::format(" {}.", to_string(next->status)));
  }
  std::string out;
  for (const auto* r : retries) {
    out += fmt::format(" Trial {} ran it again", r->index);
    if (r->config != f.trial(n)->config)
      out += " as " + config_text(f, r->config);
    if (r->measured())
      out += fmt::format(" and succeeded: {:.1f} TFLOP/s/GPU.", r->tflops_per_gpu);
    else
      out += fmt::format(" and {}{}.", to_string(r->status),
                         r->reason.empty() ? "" : ": " + open_ended(r->reason));
  }
  return out;
}

std::string trial_answer(const session_facts& f, int n) {
  const auto* r = f.trial(n);
  if (!r)
    return fmt::format("The session has no trial {}: it has {}.", n,
                       count_of(static_cast<long long>(f.summary.trials.size()), "trial"));
  const auto* d = f.decision_of(n);
  std::string out = fmt::format("Trial {} ran {}.", n, config_text(f, r->config));
  if (d && d->proposed)
    out += fmt::format(" It was chosen as \"{}\" because {}{}.", open_ended(d->change),
                       open_ended(d->why), expected_text(d->why, d->predicted_tflops));
  if (r->measured()) {
    out += fmt::format(" It measured {:.1f} TFLOP/s/GPU (MFU {}, peak memory {:.0f} MiB){}.",
                       r->tflops_per_gpu, mfu_text(r->mfu), r->peak_memory_mib,
                       d && d->predicted_tflops > 0
                         ? ", " + relative(r->tflops_per_gpu, d->predicted_tflops)
                             + " the prediction"
                         : "");
    return out;
  }
  // The failure once: the analyst's diagnosis when there is one (it names
  // the error the log gave), else the log's own reason.
  const bool diagnosed = d && d->diagnosed && !d->diagnosis.empty();
  const auto reason = open_ended(r->reason);
  const bool reason_in_diagnosis =
    diagnosed && (d->diagnosis.find(reason) != std::string::npos
                  || reason.find(open_ended(d->diagnosis)) != std::string::npos);
  if (diagnosed)
    out += fmt::format(" It {}{}; the failure analysis says: {}.", to_string(r->status),
                       reason.empty() || reason_in_diagnosis ? "" : ": " + reason,
                       open_ended(d->diagnosis));
  else
    out += fmt::format(" It {}{}.", to_string(r->status),
                       r->reason.empty() ? "" : ": " + open_ended(r->reason));
  if (r->status == trial_status::failed)
    out += after_failure(f, n);
  return out;
}

std::string failures_answer(const session_facts& f, int n) {
  if (n > 0) {
    const auto* r = f.trial(n);
    if (r && r->status != trial_status::failed)
      return fmt::format("Trial {} did not fail: it {}.", n, to_string(r->status));
    return trial_answer(f, n);
  }
  std::string list;
  int count = 0;
  for (const auto& d : f.chain)
    if (d.finished && d.status == trial_status::failed) {
      ++count;
      list += fmt::format(" Trial {} ({}): {}.", d.trial, to_string(d.failure),
                          d.diagnosed ? d.diagnosis : d.outcome);
    }
  if (count == 0)
    return fmt::format("No trial failed ({} so far).",
                       count_of(static_cast<long long>(f.summary.trials.size()), "trial"));
  return fmt::format("{} of {} failed.", count,
                     count_of(static_cast<long long>(f.summary.trials.size()), "trial"))
         + list;
}

std::string sure_answer(const session_facts& f, const std::map<std::string, std::string>& keep) {
  double sum = 0, worst = -1;
  int n = 0;
  const trial_row* worst_row = nullptr;
  for (const auto& r : f.summary.trials) {
    if (!r.measured() || r.predicted_tflops <= 0 || !holds(r.config, keep))
      continue;
    const double err = std::abs(r.tflops_per_gpu / r.predicted_tflops - 1);
    sum += err;
    ++n;
    if (err > worst) {
      worst = err;
      worst_row = &r;
    }
  }
  if (n == 0 && !keep.empty()) {
    // A follow-up to "why not tp 1?": nothing measured holds the values,
    // so the model's error is all that can be said of the session's.
    auto all = sure_answer(f, {});
    if (all.rfind("No measured trial", 0) == 0)
      return all;
    return fmt::format("No measured trial held {}, so no run checks a prediction for it. ",
                       keep_text(keep)) + all;
  }
  if (n == 0)
    return "No measured trial had a prediction to compare with yet, so the proposals rest on the "
           "performance model alone; the first measurements will say how far off it is.";
  std::string out = fmt::format(
    "Over {}{}, the predictions were off by {:.1f}% on average; the worst was "
    "trial {}: predicted {:.1f}, measured {:.1f} TFLOP/s/GPU.", count_of(n, "measured trial"),
    keep.empty() ? "" : " holding " + keep_text(keep), 100 * sum / n, worst_row->index,
    worst_row->predicted_tflops, worst_row->tflops_per_gpu);
  if (f.summary.best)
    out += fmt::format(" The best configuration's {:.1f} TFLOP/s/GPU was measured (trial {}), "
                       "not predicted.", f.summary.best->tflops_per_gpu, f.summary.best->index);
  return out;
}

std::string overview(const session_facts& f) {
  const auto& s = f.summary;
  std::string out = fmt::format("Session {} ({}, {} on {}) is {}: {} of {}.",
                                s.session, s.job.job_name, s.job.model.name,
                                count_of(s.job.world_size, "GPU"), to_string(s.state),
                                s.trials.size(), count_of(s.job.trials, "trial"));
  if (s.best)
    out += " Best so far: " + run_text(f, *s.best) + ".";
  if (!s.end_text.empty())
    out += " Why it ended: " + s.end_text + (s.end_text.back() == '.' ? "" : ".");
  return out + " Ask, for example: why this proposal first; what if I keep TP 8; which "
               "configuration is best; what happened in trial 3; why did trial 3 fail; why not "
               "MBS 4; why was trial 3 stopped; which should I use, trial 3 or 5; are you sure.";
}

} // namespace

std::string builtin_answer(const session_facts& f, const question_subject& q) {
  switch (q.topic) {
    case question_topic::why_first: return why_first(f);
    case question_topic::what_if: return what_if(f, q.keep);
    case question_topic::best: return best_answer(f);
    case question_topic::trial: return trial_answer(f, q.trial);
    case question_topic::failures: return failures_answer(f, q.trial);
    case question_topic::sure: return sure_answer(f, q.keep);
    case question_topic::why_not: return why_not(f, q.keep);
    case question_topic::stopped: return stopped_answer(f, q.trial);
    case question_topic::compare: return compare_answer(f, q.trial, q.other_trial);
    case question_topic::overview: return overview(f);
  }
  return overview(f);
}

} // namespace paratune
