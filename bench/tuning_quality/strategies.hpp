#pragma once

// The three search strategies compared at equal trial budgets. Each returns
// its trials in order; a budget of B is the first B of them (no strategy
// looks at its budget, so a shorter run is a prefix of a longer one).

#include <algorithm>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench/tuning_quality/trial_runner.hpp"
#include "core/tuning/failure_analysis.hpp"
#include "core/tuning/reasoner.hpp"

namespace paratune::bench {

using trial_log = std::vector<trial_record>;

/// The seed of one trial's run, as the strategy generator derives it.
inline uint64_t trial_seed(uint64_t session_seed, int trial) {
  return session_seed * 1000 + uint64_t(trial);
}

/// paratune's loop: analyze() on the history, run its selection, repeat;
/// stops early when the reasoner says nothing new and valid remains, or,
/// under `stop` (the job's `stop:`; budget: never), when the analysis says
/// the session has converged (core/tuning/session_stop.hpp). An
/// initial configuration the guards refuse becomes a skipped trial, and a
/// failure worth retrying runs once more as the next trial, as in the
/// strategy generator (one pool, one slot). On a replayed reality, a
/// selection the measurements lack is refused before launch: it enters the
/// history as skipped (so the reasoner does not pick it again) and costs
/// no trial.
inline trial_log run_paratune_under(const scenario& s, const trial_runner& runner, int budget,
                                    uint64_t seed, const session_stop_policy& stop) {
  constexpr int max_refusals = 10000;
  tuning_context ctx = s.context;
  ctx.stop = stop;
  trial_log log;
  std::vector<trial_outcome> history;
  std::optional<training_config> retry; // a failed trial's configuration, run once more
  for (int refusals = 0; trials_spent(log) < budget && refusals < max_refusals;) {
    const int trial = trials_spent(log) + 1;
    if (retry) {
      // The session analyses after the failure too, and a converged
      // answer launches nothing, the retry included.
      if (ctx.stop.mode == session_stop_mode::converged && analyze(ctx, history).stop.stop)
        break;
      log.push_back(runner.run(*retry, trial_seed(seed, trial)));
      history.push_back(log.back().outcome);
      retry.reset();
      continue; // a retry is not retried
    }
    const analysis a = analyze(ctx, history);
    const bool initial_refused = log.empty() && std::any_of(
      a.rejected.begin(), a.rejected.end(), [](const suggestion& x) { return x.group == candidate_group::initial; });
    if (initial_refused) {
      trial_record r;
      r.outcome.config = s.context.initial;
      r.outcome.status = trial_status::skipped;
      log.push_back(r);
      history.push_back(r.outcome);
      continue;
    }
    if (!a.selected || a.stop.stop)
      break;
    log.push_back(runner.run(a.selected->config, trial_seed(seed, trial)));
    history.push_back(log.back().outcome);
    if (log.back().unavailable) {
      ++refusals;
      continue;
    }
    const auto& o = history.back();
    if (o.status == trial_status::failed && worth_retrying(o.failure, o.confidence, !o.blamed.empty()))
      retry = o.config;
  }
  return log;
}

/// paratune as the job sets it: the stop rule unless `stop: budget`.
inline trial_log run_paratune(const scenario& s, const trial_runner& runner, int budget,
                              uint64_t seed) {
  return run_paratune_under(s, runner, budget, seed, s.context.stop);
}

/// paratune before issue 25: every trial of the budget.
inline trial_log run_paratune_budget(const scenario& s, const trial_runner& runner, int budget,
                                     uint64_t seed) {
  return run_paratune_under(s, runner, budget, seed, session_stop_policy::budget());
}

/// Random search: distinct configurations drawn uniformly from the valid
/// search space (Megatron's start-up rules are known without running, so
/// no trial is spent on them). No model, no memory screen.
inline trial_log run_random(const scenario& s, const trial_runner& runner, int budget,
                            uint64_t seed) {
  std::mt19937_64 rng(mix64(seed ^ 0x72616e646f6dULL));
  std::vector<int> order(s.space.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = int(i);
  trial_log log;
  for (int trial = 1; trial <= budget && trial <= int(order.size()); ++trial) {
    // Partial Fisher-Yates: the trial-th draw without replacement.
    std::uniform_int_distribution<size_t> pick(size_t(trial - 1), order.size() - 1);
    std::swap(order[trial - 1], order[pick(rng)]);
    log.push_back(runner.run(s.space[order[trial - 1]], trial_seed(seed, trial)));
  }
  return log;
}

/// One change at a time (coordinate descent), as the expert of OptiCo's
/// Figure 5 tunes: from the initial configuration, try every other value of
/// one key with the rest held, move to the best measured, then the next
/// key; sweep again until nothing untried remains. Changes that break a
/// start-up rule are skipped without a trial. No model.
inline trial_log run_coordinate(const scenario& s, const trial_runner& runner, int budget,
                                uint64_t seed) {
  static const char* keys[] = {"tp", "pp", "mbs", "recompute", "recompute_layers", "ep", "sp",
                               "dist_opt", "overlap_grad", "overlap_param", "fused_ce",
                               "first_pp_layers", "last_pp_layers"};
  const auto& ctx = s.context;
  trial_log log;
  std::set<std::string> tried;
  // A configuration the replayed reality lacks is refused at no trial cost.
  auto attempt = [&](const training_config& c) {
    tried.insert(fingerprint(c));
    log.push_back(runner.run(c, trial_seed(seed, trials_spent(log) + 1)));
    const auto& o = log.back().outcome;
    return o.status == trial_status::succeeded ? o.tflops_per_gpu : 0.0;
  };
  training_config best = ctx.initial;
  double best_tflops = attempt(best);
  for (bool moved = true; moved && trials_spent(log) < budget;) {
    moved = false;
    for (const char* key : keys) {
      auto dim = ctx.search.find(key);
      if (dim == ctx.search.end())
        continue;
      const training_config from = best;
      for (const auto& v : dim->second) {
        if (trials_spent(log) >= budget)
          return log;
        training_config c = from;
        set_value(c, key, v);
        if (tried.count(fingerprint(c))
            || !check_megatron_rules(ctx.model, c, ctx.world_size).empty())
          continue;
        const double t = attempt(c);
        moved = moved || !log.back().unavailable;
        if (t > best_tflops) {
          best_tflops = t;
          best = c;
        }
      }
    }
  }
  return log;
}

} // namespace paratune::bench
