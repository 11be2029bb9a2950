#pragma once

// The optuna-tpe peer: Optuna's TPESampler in a child process
// (optuna_peer.py), driven over the trial protocol. Every configuration it
// asks for runs on the bench's simulated cluster with the same seeds,
// noise and injected failures as the other strategies.
//
// Counting, as for random search: a configuration Megatron's start-up
// rules refuse is known without running, so it costs no trial; the peer is
// told "refused" (a FAIL trial in Optuna) and asks again. On a replayed
// reality a configuration outside the measured set is refused the same way
// (and kept on the log, marked unavailable, to be counted). The peer
// answers a configuration it asks for again from its earlier trial, as
// Optuna's FAQ advises, so every trial the bench runs is new. A run whose
// peer has nothing new to ask, or keeps asking for refused configurations
// (max_refusals in a row), ends with the trials it has (exhausted); one
// whose peer breaks the protocol ends with an error for the bench to report.

#include <map>
#include <string>
#include <vector>

#include "bench/tuning_quality/peer_drive.hpp"
#include "bench/tuning_quality/strategies.hpp"
#include "core/megatron_rules.hpp"

namespace paratune::bench {

/// The trials of one peer run, and why it ended early, if it did.
struct peer_run {
  trial_log log;
  int refused = 0;      ///< configurations refused before launch (no trial spent)
  bool exhausted = false;  ///< the peer said it has nothing new to ask (or kept asking refused ones)
  std::string error;    ///< a broken peer or protocol; empty otherwise
};

inline peer_run run_peer(const scenario& s, const trial_runner& runner, int budget,
                         uint64_t seed, const peer_options& opt) {
  peer_run out;
  const auto& space = s.context.search;
  const std::map<std::string, std::vector<std::string>> dims(space.begin(), space.end());
  const auto run = [&](const peer_ask& ask) {
    training_config c = s.context.initial;
    for (const auto& [key, value] : ask.config)
      set_value(c, key, value);
    peer_trial t;
    const bool rules_refuse = !check_megatron_rules(s.context.model, c, s.context.world_size).empty();
    if (!rules_refuse)
      out.log.push_back(runner.run(c, trial_seed(seed, trials_spent(out.log) + 1)));
    t.refused = rules_refuse || out.log.back().unavailable;
    if (!t.refused) {
      const auto& o = out.log.back().outcome;
      t.status = o.status == trial_status::succeeded ? tell_status::succeeded : tell_status::failed;
      t.value = o.tflops_per_gpu;
    }
    return t;
  };
  const auto d = drive_peer(dims, budget, seed, opt, run, [&] { return trials_spent(out.log); });
  out.refused = d.refused;
  out.exhausted = d.exhausted;
  out.error = d.error;
  return out;
}

} // namespace paratune::bench
