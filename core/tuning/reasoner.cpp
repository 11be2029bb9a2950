#include "core/tuning/reasoner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "core/enum_words.hpp"
#include "core/megatron_rules.hpp"
#include "core/perf/perf_model.hpp"
#include "core/tuning/candidate_scorer.hpp"
#include "core/tuning/prediction_calibration.hpp"
#include "core/tuning/safety_guards.hpp"

namespace paratune {

namespace {

/// Keeps a candidate self-consistent after a change: flags that other
/// values make meaningless are reset, required companions switched on.
void repair(training_config& c) {
  if (c.overlap_param)
    c.dist_opt = true;
  if (c.tp == 1)
    c.sp = false;
  if (c.pp == 1) {
    c.first_pp_layers = 0;
    c.last_pp_layers = 0;
    c.pp_account_embedding = false;
    c.pp_account_loss = false;
    c.vpp = 1;
  }
  if (c.recompute != recompute_mode::full)
    c.recompute_layers = 0;
}

struct candidate_list {
  const training_config& base;
  std::vector<suggestion> items;

  void add(candidate_group group, const std::string& why,
           const std::function<void(training_config&)>& change) {
    training_config c = base;
    change(c);
    repair(c);
    if (c == base)
      return;
    for (auto& s : items)
      if (s.config == c)
        return; // the first generator's reason stays
    suggestion s;
    s.config = c;
    s.changes = diff(base, c);
    s.text = change_text(s.changes);
    s.group = group;
    s.why = why;
    items.push_back(std::move(s));
  }
};

recompute_mode stronger(recompute_mode m) {
  return m == recompute_mode::none ? recompute_mode::selective : recompute_mode::full;
}

void directive_candidates(const training_config& b, candidate_list& out) {
  // OptiCo: reduce PP first ([PP//2, 1]), then TP ([TP//2, 1]). When the
  // reduced split needs more memory, the same split with recomputation
  // is the next candidate.
  auto reduce = [&](const char* key, int current, auto set) {
    for (int v : {current / 2, 1}) {
      if (v < 1 || v >= current)
        continue;
      for (auto rc : {b.recompute, stronger(b.recompute), recompute_mode::full}) {
        out.add(candidate_group::directive,
                std::string("reduce ") + key + " to cut parallelism overhead",
                [&](training_config& c) { set(c, v); c.recompute = std::max(c.recompute, rc); });
      }
    }
  };
  if (b.pp > 1)
    reduce("PP", b.pp, [](training_config& c, int v) { c.pp = v; });
  if (b.tp > 1)
    reduce("TP", b.tp, [](training_config& c, int v) { c.tp = v; });
}

void memory_relief_candidates(const training_config& b, double mem_pct,
                              candidate_list& out) {
  const auto why = fmt::format("memory at {:.0f}% of the device: relieve it", mem_pct);
  if (b.recompute != recompute_mode::full)
    out.add(candidate_group::standard, why,
            [&](training_config& c) { c.recompute = stronger(b.recompute); });
  if (b.mbs > 1)
    out.add(candidate_group::standard, why,
            [&](training_config& c) { c.mbs = std::max(1, b.mbs / 2); });
  if (!b.dist_opt)
    out.add(candidate_group::standard, why + " (shard optimizer state)",
            [](training_config& c) { c.dist_opt = true; });
  if (b.tp > 1 && !b.sp)
    out.add(candidate_group::standard, why + " (shard activations over TP)",
            [](training_config& c) { c.sp = true; });
  out.add(candidate_group::standard, why + " (split the model further)",
          [&](training_config& c) { c.tp = b.tp * 2; });
  out.add(candidate_group::standard, why + " (split the model further)",
          [&](training_config& c) { c.pp = b.pp * 2; });
}

void standard_candidates(const training_config& b, const trial_outcome& run,
                         candidate_list& out) {
  const double mem = run.memory_usage_pct();
  if (mem > 90)
    memory_relief_candidates(b, mem, out);
  if (run.gpu_util_pct > 80 && mem < 80)
    out.add(candidate_group::standard,
            fmt::format("GPU busy {:.0f}% with memory headroom ({:.0f}%): a larger micro batch "
                        "raises GEMM efficiency", run.gpu_util_pct, mem),
            [&](training_config& c) { c.mbs = b.mbs * 2; });
  if (!b.overlap_grad)
    out.add(candidate_group::standard, "gradient reduction is not overlapped with backward",
            [](training_config& c) { c.overlap_grad = true; });
  // Megatron-LM overlaps the parameter all-gather only on top of the
  // distributed optimizer and an overlapped gradient reduction.
  if (!b.overlap_param)
    out.add(candidate_group::standard, "parameter all-gather is not overlapped with forward",
            [](training_config& c) {
              c.overlap_param = true;
              c.overlap_grad = true;
              c.dist_opt = true;
            });
  if (!b.fused_ce)
    out.add(candidate_group::standard, "cross-entropy is not fused",
            [](training_config& c) { c.fused_ce = true; });
  if (mem < 70 && b.recompute != recompute_mode::none) {
    const auto why = fmt::format("memory headroom ({:.0f}% used): recomputation repeats forward "
                                 "work for memory that is not needed", mem);
    out.add(candidate_group::standard, why,
            [](training_config& c) { c.recompute = recompute_mode::none; });
    out.add(candidate_group::standard, why,
            [](training_config& c) { c.recompute = recompute_mode::selective; });
  }
  if (mem < 60)
    out.add(candidate_group::standard,
            fmt::format("memory headroom ({:.0f}% used): less tensor parallelism means fewer "
                        "collectives", mem),
            [&](training_config& c) { c.tp = std::max(1, b.tp / 2); });
}

void exploratory_candidates(const tuning_context& ctx, const training_config& b,
                            candidate_list& out) {
  // Step 3.3: minimal changes to parameters that are not primarily tuned
  // for performance, in the search space's own order of values.
  static const char* keys[] = {"fused_ce", "recompute_layers", "first_pp_layers",
                               "last_pp_layers", "overlap_grad", "overlap_param",
                               "sp", "dist_opt", "recompute", "mbs", "tp", "pp",
                               "vpp", "cp", "ep", "pp_account_embedding",
                               "pp_account_loss", "grad_reduce_bf16"};
  for (const char* key : keys) {
    auto it = ctx.search.find(key);
    if (it == ctx.search.end())
      continue;
    for (const auto& v : it->second)
      out.add(candidate_group::exploratory,
              std::string("exploratory change of ") + display_name(key),
              [&](training_config& c) {
                set_value(c, key, v);
                if (std::string(key) == "recompute_layers" && v != "0")
                  c.recompute = recompute_mode::full;
              });
  }
}

/// The parallel split of a configuration (what changes the work per GPU);
/// flags such as the overlaps or the fused loss do not change it.
std::string split_of(const training_config& c) {
  char buf[112];
  std::snprintf(buf, sizeof buf, "%d/%d/%d/%d/%d/%d/%d/%d/%d/%d/%d/%d/%d", c.tp, c.pp, c.cp,
                c.ep, c.vpp, c.mbs, int(c.recompute), c.recompute_layers, int(c.sp),
                c.first_pp_layers, c.last_pp_layers, int(c.pp_account_embedding),
                int(c.pp_account_loss));
  return buf;
}

/// The model's best configurations in the whole search space, by score.
/// At most two per split: a split's flag variants are within a percent of
/// each other, and twenty-four of them would crowd out every other split.
/// Every configuration of the search space walked from `b` that can run,
/// in the walk's order (runnable_space).
std::vector<training_config> runnable_configs(const tuning_context& ctx, const training_config& b,
                                              const safety_guards& guards) {
  std::vector<std::pair<std::string, std::vector<std::string>>> dims(ctx.search.begin(),
                                                                     ctx.search.end());
  std::vector<training_config> out;
  std::function<void(size_t, training_config&)> walk = [&](size_t i, training_config& c) {
    if (i == dims.size()) {
      training_config r = c;
      repair(r);
      // A configuration that cannot run (a Megatron rule, a replay pool's
      // unmeasured one) takes no slot from one that can.
      if (!check_megatron_rules(ctx.model, r, ctx.world_size).empty() || !guards.available(r))
        return;
      out.push_back(r);
      return;
    }
    const auto saved = get_value(c, dims[i].first);
    for (const auto& v : dims[i].second) {
      set_value(c, dims[i].first, v);
      walk(i + 1, c);
    }
    set_value(c, dims[i].first, saved);
  };
  training_config c = b;
  walk(0, c);
  return out;
}

void model_candidates(const tuning_context& ctx, const training_config& b,
                      const candidate_scorer& rank, const safety_guards& guards,
                      double base_tflops, runnable_space* space, candidate_list& out) {
  std::vector<training_config> walked;
  if (!space || !space->fits(ctx, b)) {
    walked = runnable_configs(ctx, b, guards);
    if (space) {
      space->from = runnable_space::mask(ctx, b);
      space->configs = walked;
      space->walked = true;
    }
  }
  const auto& runnable = space ? space->configs : walked;
  std::vector<std::pair<double, training_config>> scored;
  for (const auto& r : runnable) {
    const auto& p = rank.estimator().raw(r);
    if (guards.duplicate(r) || guards.known_failure(r) || guards.memory(r, p))
      continue;
    scored.emplace_back(rank.score(r).value, r);
  }
  std::sort(scored.begin(), scored.end(),
            [](const auto& x, const auto& y) { return x.first > y.first; });
  std::unordered_map<std::string, int> per_split;
  int added = 0;
  for (size_t i = 0; i < scored.size() && added < 24; ++i) {
    if (++per_split[split_of(scored[i].second)] > 2)
      continue;
    ++added;
    const auto e = rank.estimator().estimate(scored[i].second);
    const double gain = base_tflops > 0 ? 100 * (e.tflops / base_tflops - 1) : 0;
    // Predicted below the run it changes: worth measuring only to learn,
    // and said so, as the TPU engine labels its proposals.
    const auto cap = e.cap_tflops > 0
                       ? fmt::format(", and no more than the {:.1f} of a measured run it only adds "
                                     "work to",
                                     e.cap_tflops)
                       : std::string();
    out.add(candidate_group::model,
            fmt::format("{}the performance model, corrected by the measured runs, expects {:.1f} "
                        "TFLOP/s/GPU ({:+.1f}% against the base run){}",
                        gain < 0 ? "exploration: " : "", e.tflops, gain, cap),
            [&](training_config& t) { t = scored[i].second; });
  }
}

int best_success(const std::vector<trial_outcome>& history) {
  int best = -1;
  for (size_t i = 0; i < history.size(); ++i)
    if (history[i].ran()
        && (best < 0 || history[i].tflops_per_gpu > history[best].tflops_per_gpu))
      best = int(i);
  return best;
}

/// Runs every candidate through the guards, in order; fills ranked/rejected.
void screen(std::vector<suggestion>& items, const candidate_scorer& rank,
            const safety_guards& guards, analysis& a) {
  for (auto& s : items) {
    const auto& p = rank.estimator().raw(s.config);
    // The figure the memory screen used, not the raw model's: a suggestion
    // that passed the screen must never show a peak over the device.
    s.predicted_peak_mib = guards.screened_peak_mib(s.config, p);
    s.rejected = guards.check(s.config, p);
    if (!s.rejected) {
      const auto score = rank.score(s.config);
      s.predicted_tflops = score.tflops;
      s.uncertainty = score.sigma;
      s.oom_risk = score.oom_risk;
      s.score = score.value;
    }
    (s.rejected ? a.rejected : a.ranked).push_back(s);
  }
}

void rank_by_score(std::vector<suggestion>& v) {
  std::stable_sort(v.begin(), v.end(), [](const suggestion& x, const suggestion& y) {
    return x.score > y.score;
  });
}

/// What the stop decision weighs: the ranked candidates (what the session
/// would run next) and the trials running now, against the best run, with
/// the model's uncertainty widened by its measured error on this session.
session_stop_inputs session_stop_inputs_of(const tuning_context& ctx, const std::vector<trial_outcome>& history,
                           const std::vector<pending_trial>& pending, const analysis& a,
                           const candidate_scorer& rank, int incumbent) {
  session_stop_inputs in;
  in.incumbent_tflops = history[size_t(incumbent)].tflops_per_gpu;
  in.incumbent_trial = trial_number(history, size_t(incumbent));
  const auto calibration = calibrate_predictions(ctx, history);
  in.sigma_scale = calibration.sigma_scale;
  in.checks = int(calibration.checks.size());
  in.scale_dof = calibration.degrees_of_freedom;
  for (const auto& s : a.ranked)
    in.candidates.push_back({s.text, s.predicted_tflops, s.uncertainty, 1 - s.oom_risk, false});
  for (const auto& p : pending) {
    const auto score = rank.score(p.config);
    in.candidates.push_back({"trial " + std::to_string(p.trial) + " ("
                               + change_text(diff(a.base, p.config)) + ")",
                             score.tflops, score.sigma, 1 - score.oom_risk, true});
  }
  return in;
}

std::string describe(const analysis& a) {
  std::string r = "Health: " + std::string(to_string(a.health.state)) + " (directive "
                  + directive_of(a.health.state) + "). " + a.health.reasoning + "\n";
  r += "Base: " + (a.base_trial >= 0 ? "trial " + std::to_string(a.base_number)
                                     : std::string("the job's initial configuration"))
       + ".\n";
  for (const auto& s : a.rejected)
    r += "Rejected " + s.text + " [" + to_string(s.group) + "]: " + *s.rejected + ".\n";
  for (size_t i = 0; i < a.ranked.size() && i < 5; ++i) {
    const auto& s = a.ranked[i];
    r += "Candidate " + std::to_string(i + 1) + ": " + s.text + " [" + to_string(s.group) + "] "
         + s.why
         + fmt::format("; expected {:.1f} TFLOP/s/GPU (+-{:.1f}%)", s.predicted_tflops,
                       100 * s.uncertainty)
         + fmt::format(", peak {:.0f} MiB ({:.0f}% risk of running out of memory).\n",
                       s.predicted_peak_mib, 100 * s.oom_risk);
  }
  if (a.ranked.size() > 1)
    r += "Ranking: targeted candidates of the directive first, then the expected gain over "
         "the best run by more than 1%, from the expected throughput and its uncertainty (a "
         "new split is known only to the model's error, a flag toggle of a measured split to "
         "about a percent), times the chance of fitting in memory.\n";
  if (a.stop.stop)
    r += "Stop: " + a.stop.reason;
  else if (a.selected)
    r += "Selected: " + a.selected->text + " Reason: " + a.selected->why + ".";
  else
    r += "All plausible configurations have been tried: nothing new and valid remains.";
  return r;
}

} // namespace

const char* to_string(candidate_group g) {
  switch (g) {
    case candidate_group::directive: return "directive";
    case candidate_group::standard: return "standard";
    case candidate_group::model: return "model";
    case candidate_group::exploratory: return "exploratory";
    case candidate_group::initial: return "initial";
    case candidate_group::retry: return "retry";
    case candidate_group::llm: return "llm";
  }
  return "standard";
}

bool parse_candidate_group(const std::string& text, candidate_group& out) {
  return parse_word_of(text,
                       {candidate_group::directive, candidate_group::standard,
                        candidate_group::model, candidate_group::exploratory,
                        candidate_group::initial, candidate_group::retry, candidate_group::llm},
                       out);
}

training_config runnable_space::mask(const tuning_context& ctx, training_config base) {
  for (const auto& [key, values] : ctx.search)
    if (!values.empty())
      set_value(base, key, values.front());
  return base;
}

analysis analyze(const tuning_context& ctx, const std::vector<trial_outcome>& history,
                 const std::vector<pending_trial>& pending, runnable_space* space,
                 const health_diagnosis* health) {
  analysis a;
  throughput_estimator estimator(ctx, history);
  const auto predictor = [&estimator](const training_config& c) -> const perf_prediction& {
    return estimator.raw(c);
  };
  safety_guards guards(ctx, history, predictor, pending);
  const memory_screen memory(history, predictor);
  const int incumbent = best_success(history);
  const candidate_scorer rank(estimator, memory,
                              incumbent >= 0 ? history[incumbent].tflops_per_gpu : 0);
  a.base_trial = ctx.from_last_run && !history.empty() ? int(history.size()) - 1 : incumbent;
  a.base = a.base_trial >= 0 ? history[a.base_trial].config : ctx.initial;
  a.base_number = a.base_trial >= 0 ? trial_number(history, size_t(a.base_trial)) : 0;
  // A skipped trial (refused before launch) says nothing about the
  // configuration's memory or speed: only a failure asks to make it fit.
  const bool any_failed = std::any_of(history.begin(), history.end(), [](const trial_outcome& o) {
    return o.status == trial_status::failed;
  });
  const bool any_result = any_failed || a.base_trial >= 0;
  trial_outcome base_run;
  if (a.base_trial >= 0 && !history[a.base_trial].ran()) {
    base_run = history[a.base_trial];
    const bool oom = base_run.failure == failure_kind::oom;
    if (oom)
      base_run.peak_memory_mib = base_run.memory_limit_mib; // it reached the limit
    a.health.state = oom ? health_state::memory_bound : health_state::performance_tune;
    a.health.reasoning = "the current run failed (" + std::string(to_string(base_run.failure))
                         + (oom ? "): make the configuration fit first" : "): try a neighbour");
  } else if (a.base_trial >= 0) {
    base_run = history[a.base_trial];
    a.health = health ? *health : diagnose_health(base_run);
  } else {
    base_run.config = a.base;
    a.health.state = any_failed ? health_state::memory_bound : health_state::performance_tune;
    a.health.reasoning = any_failed
      ? "no run has succeeded yet: make the configuration fit first"
      : !history.empty()
      ? "no run yet (the configurations tried so far were not launched)"
      : ctx.start == start_policy::initial
      ? "no run yet: start from the job's initial configuration"
      : "no run yet and no setup of the team's to measure (start: predicted_best): start from "
        "the model's best candidate";
  }
  candidate_list cands{a.base, {}};
  if (history.empty() && pending.empty() && ctx.start == start_policy::initial) {
    suggestion initial;
    initial.config = a.base;
    initial.text = "Run the initial configuration.";
    initial.group = candidate_group::initial;
    initial.why = "the pool is empty: measure the starting point";
    cands.items.push_back(initial);
  }
  const bool directive = a.health.state == health_state::severely_underutilized
                         || a.health.state == health_state::high_pp_overhead;
  if (directive)
    directive_candidates(a.base, cands);
  // Memory relief first once a run has failed to fit or nothing has run
  // successfully; not before the first result, when the initial run (in
  // flight, or first in line) says whether it is needed and the other
  // slots are better spent on the best predicted configurations.
  if (a.health.state == health_state::memory_bound || (a.base_trial < 0 && any_failed)
      || !base_run.ran())
    memory_relief_candidates(a.base, base_run.memory_usage_pct(), cands);
  const size_t targeted = cands.items.size();
  // The standard changes read a run's memory and utilisation: before the
  // first result there is none, and the model's candidates speak alone.
  if (any_result)
    standard_candidates(a.base, base_run, cands);
  const double base_tflops = a.base_trial >= 0 ? base_run.tflops_per_gpu : 0;
  model_candidates(ctx, a.base, rank, guards, base_tflops, space, cands);

  // Directive and memory-relief candidates keep their priority and their
  // OptiCo order; the rest compete on score.
  std::vector<suggestion> first(cands.items.begin(), cands.items.begin() + targeted);
  std::vector<suggestion> rest(cands.items.begin() + targeted, cands.items.end());
  screen(first, rank, guards, a);
  const size_t prioritized = a.ranked.size();
  screen(rest, rank, guards, a);
  std::stable_sort(a.ranked.begin(), a.ranked.begin() + prioritized,
                   [](const suggestion& x, const suggestion& y) {
                     const auto initial = candidate_group::initial;
                     return x.group == initial && y.group != initial;
                   });
  std::vector<suggestion> tail(a.ranked.begin() + prioritized, a.ranked.end());
  rank_by_score(tail);
  std::copy(tail.begin(), tail.end(), a.ranked.begin() + prioritized);

  if (a.ranked.empty()) {
    candidate_list explore{a.base, {}};
    exploratory_candidates(ctx, a.base, explore);
    screen(explore.items, rank, guards, a);
    rank_by_score(a.ranked);
  }
  if (!a.ranked.empty())
    a.selected = a.ranked.front();
  a.exhausted = !a.selected;
  // Nothing left is a session exhausted, not converged.
  if (ctx.stop.mode == session_stop_mode::converged && incumbent >= 0 && !a.ranked.empty()) {
    const auto in = session_stop_inputs_of(ctx, history, pending, a, rank, incumbent);
    a.stop = decide_stop(ctx.stop, in);
    // The ranked candidates come first among the stop's, the selected first
    // of them; the one to run next moves to the front (selected is ranked.front()).
    const size_t next = next_worth_running(a.stop, in, 0);
    if (next != 0) {
      a.ranked[next].why += fmt::format(
        "; it has the best chance of beating the best run by more than {:.1f}% ({:.1f}%), so it "
        "runs before the ranking's first choice ({}, {:.1f}%)",
        100 * ctx.stop.min_gain, 100 * a.stop.chances[next], a.ranked.front().text,
        100 * a.stop.chances.front());
      std::rotate(a.ranked.begin(), a.ranked.begin() + long(next), a.ranked.begin() + long(next) + 1);
      a.selected = a.ranked.front();
    }
  }
  a.reasoning = describe(a);
  return a;
}

} // namespace paratune
