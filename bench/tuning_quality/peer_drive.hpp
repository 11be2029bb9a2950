#pragma once

// Driving a search peer (optuna_peer.py) over the trial protocol, whatever
// it searches: the GPU bench (optuna_tpe.hpp) runs Megatron-LM
// configurations, the TPU bench meshes. The caller runs or refuses each
// configuration asked for; this loop keeps the protocol, the deadlines and
// the counting of refusals.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/tuning_quality/peer_process.hpp"
#include "bench/tuning_quality/trial_protocol.hpp"

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

/// What the bench did with one configuration a peer asked for.
struct peer_trial {
  bool refused = false;  ///< known not to run without a trial: the peer asks again
  tell_status status = tell_status::failed;  ///< when it ran
  double value = 0;      ///< the measured throughput, when it succeeded
};

/// How a peer run ended, beside the trials the caller logged.
struct peer_drive {
  int refused = 0;      ///< configurations refused before launch (no trial spent)
  bool exhausted = false;  ///< the peer said it has nothing new to ask (or kept asking refused ones)
  std::string error;    ///< a broken peer or protocol; empty otherwise
};

/// Drives one peer run over the trial protocol: `run` runs (or refuses)
/// each configuration asked for and logs it; `spent` counts the trials run
/// so far. Shared by the GPU bench (run_peer) and the TPU bench.
inline peer_drive drive_peer(const std::map<std::string, std::vector<std::string>>& dims,
                             int budget, uint64_t seed, const peer_options& opt,
                             const std::function<peer_trial(const peer_ask&)>& run,
                             const std::function<int()>& spent) {
  peer_drive out;
  peer_process peer(opt.command);
  if (!peer.error().empty()) {
    out.error = peer.error();
    return out;
  }
  if (!peer.send(start_message(dims, budget, seed))) {
    // A peer that ended before reading may have said why: a line it left
    // that breaks the protocol explains more than the closed pipe (and
    // whether the write or the peer's exit comes first is a race).
    out.error = peer.error();
    if (const auto left = peer.read_line(std::chrono::milliseconds(500)); left.line)
      if (const auto msg = parse_peer_message(*left.line, dims);
          const auto* e = std::get_if<protocol_error>(&msg))
        out.error = e->message;
    return out;
  }
  int refused_in_a_row = 0;
  bool asked = false;
  while (spent() < budget) {
    const auto line = peer.read_line(asked ? opt.reply : opt.first_reply);
    asked = true;
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
    const auto t = run(std::get<peer_ask>(msg));
    std::string reply;
    if (t.refused) {
      ++out.refused;
      if (++refused_in_a_row >= opt.max_refusals) {
        out.exhausted = true;
        return out;
      }
      reply = tell_message(tell_status::refused);
    } else {
      refused_in_a_row = 0;
      reply = t.status == tell_status::succeeded ? tell_message(tell_status::succeeded, t.value)
                                                 : tell_message(tell_status::failed);
    }
    if (!peer.send(spent() < budget ? reply : stop_message())) {
      out.error = peer.error();
      return out;
    }
  }
  return out;
}

} // namespace paratune::bench
