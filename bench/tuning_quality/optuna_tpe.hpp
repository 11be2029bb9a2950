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

#include <chrono>
#include <string>
#include <vector>

#include "bench/tuning_quality/peer_process.hpp"
#include "bench/tuning_quality/strategies.hpp"
#include "bench/tuning_quality/trial_protocol.hpp"
#include "core/megatron_rules.hpp"

namespace paratune::bench {

struct peer_options {
  std::vector<std::string> command;              ///< argv of the peer
  std::chrono::milliseconds first_reply{120000}; ///< imports (optuna loads in seconds)
  std::chrono::milliseconds reply{30000};        ///< each later answer
  int max_refusals = 200;                        ///< refused asks in a row before giving up
};

/// The default peer: Debian's python3 (where python3-optuna installs) on
/// the script next to this header in the source tree.
inline peer_options optuna_peer(const std::string& source_dir) {
  peer_options o;
  o.command = {"/usr/bin/python3", source_dir + "/bench/tuning_quality/optuna_peer.py"};
  return o;
}

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
  peer_process peer(opt.command);
  if (!peer.error().empty()) {
    out.error = peer.error();
    return out;
  }
  const auto& space = s.context.search;
  const std::map<std::string, std::vector<std::string>> dims(space.begin(), space.end());
  if (!peer.send(start_message(dims, budget, seed))) {
    out.error = peer.error();
    return out;
  }
  int refused_in_a_row = 0;
  while (trials_spent(out.log) < budget) {
    const auto timeout = out.log.empty() && out.refused == 0 ? opt.first_reply : opt.reply;
    const auto line = peer.read_line(timeout);
    if (!line.line) {
      out.error = line.error;
      return out;
    }
    const auto msg = parse_peer_message(*line.line, dims);
    if (const auto* e = std::get_if<protocol_error>(&msg)) {
      out.error = e->message;
      return out;
    }
    if (std::holds_alternative<peer_done>(msg)) {
      out.exhausted = true;
      return out;
    }
    training_config c = s.context.initial;
    for (const auto& [key, value] : std::get<peer_ask>(msg).config)
      set_value(c, key, value);
    std::string reply;
    const bool rules_refuse = !check_megatron_rules(s.context.model, c, s.context.world_size).empty();
    if (!rules_refuse)
      out.log.push_back(runner.run(c, trial_seed(seed, trials_spent(out.log) + 1)));
    if (rules_refuse || out.log.back().unavailable) {
      ++out.refused;
      if (++refused_in_a_row >= opt.max_refusals) {
        out.exhausted = true;
        return out;
      }
      reply = tell_message(tell_status::refused);
    } else {
      refused_in_a_row = 0;
      const auto& o = out.log.back().outcome;
      reply = o.status == trial_status::succeeded ? tell_message(tell_status::succeeded, o.tflops_per_gpu)
                                                  : tell_message(tell_status::failed);
    }
    if (!peer.send(trials_spent(out.log) < budget ? reply : stop_message())) {
      out.error = peer.error();
      return out;
    }
  }
  return out;
}

} // namespace paratune::bench
