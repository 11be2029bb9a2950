#pragma once

// A tuning session written record by record from the wire types into a
// real pool, for the dashboard's tests: three trials (one measured, one
// failed with its diagnosis, one measured and best), then its end.

#include <string>

#include "messages/codec.hpp"
#include "storage/message_pool.hpp"

namespace paratune::test {

inline const std::string hostile_job = "<script>alert(1)</script>";

inline wire::session_opened built_job(const std::string& name, int budget) {
  wire::session_opened job;
  job.job_name = name;
  job.model.name = "llama3-8b";
  job.model.family = "llama3";
  job.model.size = "8b";
  job.model.layers = 32;
  job.model.hidden = 4096;
  job.model.heads = 32;
  job.model.kv_heads = 8;
  job.model.head_dim = 128;
  job.model.ffn = 14336;
  job.model.vocab = 128256;
  job.model.swiglu = true;
  job.model.tied_embeddings = false;
  job.model.rmsnorm = true;
  job.model.max_seq = 8192;
  job.cluster.name = "dgx-a100-80g";
  job.nodes = 1;
  job.world_size = 8;
  job.precision = "fp16";
  job.trials = budget;
  return job;
}

inline wire::proposal built_proposal(int trial, const std::string& change,
                                     const std::string& reasoning) {
  wire::proposal p;
  p.trial = trial;
  p.config = {{"tp", std::to_string(trial)}, {"pp", "1"}};
  p.change = change;
  p.why = "expected faster (trial " + std::to_string(trial) + ")";
  p.reasoning = reasoning;
  p.pool = "sim";
  return p;
}

inline wire::trial_result built_success(int trial, double tflops, double mfu, double peak) {
  wire::trial_result r;
  r.trial = trial;
  r.config = {{"tp", std::to_string(trial)}, {"pp", "1"}};
  r.status = trial_status::succeeded;
  r.tflops_per_gpu = tflops;
  r.mfu = mfu;
  r.peak_memory_mib = peak;
  r.iterations_scored = 10;
  r.pool = "sim";
  r.started_at_ms = 1'764'000'000'000 + trial * 60'000;
  r.ended_at_ms = r.started_at_ms + 30'000;
  return r;
}

inline wire::trial_result built_failure(int trial, const std::string& error) {
  wire::trial_result r;
  r.trial = trial;
  r.config = {{"tp", std::to_string(trial)}, {"pp", "1"}};
  r.status = trial_status::failed;
  r.error_kind = failure_kind::oom;
  r.error_message = error;
  r.reason = error;
  r.pool = "sim";
  return r;
}

/// Appends `body` to the pool as session `sid`'s record for `trial`.
template <class T>
void put(message_pool& pool, const std::string& sid, int trial, const T& body) {
  auto seq = pool.append(wire::make_envelope(sid, trial, body));
  if (!seq)
    throw std::runtime_error("cannot append to the test pool");
}

/// The three-trial session, named `job_name`, opened at `opened_at_ms`
/// (Unix ms) and ended finished.
inline void write_built_session(message_pool& pool, const std::string& sid,
                                const std::string& job_name, int64_t opened_at_ms) {
  auto opened = wire::make_envelope(sid, 0, built_job(job_name, 3));
  opened.ts_ms = opened_at_ms;
  if (!pool.append(opened))
    throw std::runtime_error("cannot append to the test pool");
  put(pool, sid, 1, built_proposal(1, "Run the initial configuration.", "the pool is empty"));
  put(pool, sid, 1, wire::trial_started{1, {{"tp", "1"}, {"pp", "1"}}, {}, "sim"});
  put(pool, sid, 1, built_success(1, 150.25, 0.4816, 61234));
  put(pool, sid, 2, built_proposal(2, "Change MBS from 1 to <4>.", "memory headroom & <b>more</b>"));
  put(pool, sid, 2, wire::trial_started{2, {{"tp", "2"}, {"pp", "1"}}, {}, "sim"});
  put(pool, sid, 2, built_failure(2, "torch.OutOfMemoryError: CUDA out of memory <GPU 0>"));
  wire::failure_diagnosis d;
  d.trial = 2;
  d.kind = failure_kind::oom;
  d.blamed = {"mbs"};
  d.confidence = 92;
  d.summary = "MBS 4 caused CUDA OutOfMemoryError (Confidence: 92)";
  put(pool, sid, 2, d);
  put(pool, sid, 3, built_proposal(3, "Change TP from 1 to 3.", "the model expects 210"));
  put(pool, sid, 3, wire::trial_started{3, {{"tp", "3"}, {"pp", "1"}}, {}, "sim"});
  put(pool, sid, 3, built_success(3, 210.5, 0.6747, 70000));
  wire::session_status end;
  end.state = session_state::finished;
  end.trials_done = 3;
  end.best_trial = 3;
  end.best_tflops = 210.5;
  put(pool, sid, 0, end);
}

} // namespace paratune::test
