#pragma once

// Jobs, reports and results for the decision tests: small, with every
// value a test asserts on set here or in the test itself.

#include <string>
#include <vector>

#include "ledger/session_ledger.hpp"
#include "messages/conversions.hpp"
#include "tests/fixtures/history_builder.hpp"

namespace paratune::test {

/// The ledger of the records `h` built.
inline session_ledger ledger_of(const history_builder& h) {
  session_ledger l;
  l.apply(h.records);
  return l;
}

inline wire::config_map config_with_mbs(int mbs) {
  training_config c;
  c.mbs = mbs;
  return wire::to_wire(c);
}

inline wire::pool_wire pool_named(const std::string& name, int capacity,
                                  pool_kind kind = pool_kind::simulated) {
  wire::pool_wire p;
  p.name = name;
  p.capacity = capacity;
  p.kind = kind;
  return p;
}

/// An 80 GiB device, a budget of `trials`, and the pools given.
inline wire::session_opened job_on(std::vector<wire::pool_wire> pools, int trials = 10) {
  wire::session_opened j;
  j.trials = trials;
  j.pools = std::move(pools);
  j.cluster.hbm_gib = 80;
  j.cluster.peak_tflops_16 = 989;
  j.world_size = 8;
  j.precision = "bf16";
  j.model.name = "gpt-1.3b";
  j.model.layers = 24;
  j.model.hidden = 2048;
  j.model.heads = 16;
  j.model.kv_heads = 16;
  j.model.ffn = 8192;
  j.model.vocab = 50257;
  j.model.max_seq = 2048;
  return j;
}

inline wire::suggestion_wire ranked_as(int mbs, double peak_mib = 20000) {
  wire::suggestion_wire s;
  s.config = config_with_mbs(mbs);
  s.text = "Set micro_batch_size to " + std::to_string(mbs) + ".";
  s.predicted_tflops = 100.0 + mbs;
  s.predicted_peak_mib = peak_mib;
  return s;
}

/// Request `request`'s report asking for `slots` trials, ranking `ranked`.
inline wire::analysis_report report_ranking(int request, int slots,
                                            std::vector<wire::suggestion_wire> ranked) {
  wire::analysis_report r;
  r.request = request;
  r.slots = slots;
  r.ranked = std::move(ranked);
  return r;
}

inline wire::proposal proposal_on(int trial, int mbs, const std::string& pool) {
  wire::proposal p;
  p.trial = trial;
  p.request = 1;
  p.config = config_with_mbs(mbs);
  p.pool = pool;
  return p;
}

inline wire::trial_result failed_on(int trial, int mbs, const std::string& pool,
                                    failure_kind kind) {
  wire::trial_result r;
  r.trial = trial;
  r.status = trial_status::failed;
  r.error_kind = kind;
  r.pool = pool;
  r.config = config_with_mbs(mbs);
  if (kind == failure_kind::launcher_error)
    r.error_message = "sbatch: error: invalid partition specified: h100";
  return r;
}

inline wire::failure_diagnosis worth_a_retry(int trial, failure_kind kind) {
  return {trial, kind, {}, 40, true, "NCCL watchdog timeout on one rank"};
}

} // namespace paratune::test
