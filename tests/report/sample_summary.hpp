#pragma once

#include <string>

#include "report/session_summary.hpp"

namespace paratune::test {

/// How many times `what` occurs in `text`.
inline int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

/// Llama 3 8B as a job's model, enough for its Megatron-LM arguments.
inline wire::model_wire llama3_8b_model() {
  wire::model_wire m;
  m.name = "llama3-8b";
  m.family = "llama";
  m.size = "8b";
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn = 14336;
  m.vocab = 128256;
  m.swiglu = true;
  m.tied_embeddings = false;
  m.rmsnorm = true;
  m.max_seq = 8192;
  return m;
}

/// A row with the fields the charts and renderers read.
inline trial_row sample_row(int index, trial_status status, double mfu, double tflops,
                            double predicted = 0) {
  trial_row r;
  r.index = index;
  r.status = status;
  r.mfu = mfu;
  r.tflops_per_gpu = tflops;
  r.predicted_tflops = predicted;
  r.config = {{"tp", "8"}, {"pp", "1"}, {"mbs", "1"}, {"gbs", "512"}, {"seq", "8192"}};
  return r;
}

/// Six trials: 1 measured, 2 failed, 3 stopped early with a measurement
/// (the best), 4 measured, 5 stopped before any measurement, 6 skipped.
/// Trials 1 and 4 carry a prediction.
inline session_summary sample_summary() {
  session_summary s;
  s.session = "s1";
  s.state = session_state::finished;
  s.trials = {sample_row(1, trial_status::succeeded, 0.30, 130, 140),
              sample_row(2, trial_status::failed, 0, 0),
              sample_row(3, trial_status::stopped, 0.35, 150),
              sample_row(4, trial_status::succeeded, 0.32, 140, 150),
              sample_row(5, trial_status::stopped, 0, 0),
              sample_row(6, trial_status::skipped, 0, 0)};
  s.trials[1].failure = failure_kind::oom;
  s.trials[2].stop = stop_reason::stable;
  s.trials[4].stop = stop_reason::cannot_beat_incumbent;
  s.first_success = s.trials[0];
  s.best = s.trials[2];
  return s;
}

} // namespace paratune::test
