#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis_report.hpp"
#include "core/tpu/tpu_mesh.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// Where a proposal's reasoning comes from: a past optimization from the
/// pool or a knowledge-base document found by BM25.
struct citation {
  std::string kind;     ///< "history" or "knowledge"
  std::string id;       ///< record id or document id
  std::string title;
  double score = 0;     ///< similarity (history, 0-1) or BM25 score (knowledge)
  std::string excerpt;  ///< before -> after and impact, or the document's first sentences
};

/// What the models predict for a proposal, against the baseline.
struct predicted_impact {
  double step_ms_before = 0;     ///< measured when the profile has it, else predicted
  double step_ms_after = 0;      ///< before x (model after / model before)
  double speedup = 1;            ///< before / after
  double mfu_after = 0;          ///< model MFU (uncalibrated)
  double memory_gib_after = 0;   ///< per device
  double memory_limit_gib = 0;
  std::string metric;            ///< the diagnosed bottleneck's quantity
  double metric_before = 0;
  double metric_after = 0;
};

/// One ranked proposal.
struct proposal {
  int rank = 0;
  std::string title;
  std::optional<tpu_mesh> mesh;             ///< TPU
  std::optional<training_config> config;    ///< GPU
  std::string change;                       ///< "data 4->8, model 4->2"
  std::string rationale;
  std::vector<std::string> tradeoffs;
  predicted_impact predicted;
  double confidence = 0;                    ///< 0-1
  bool targeted = true;                     ///< addresses the diagnosed bottleneck directly
  /// Predicted slower than the current layout, kept only to explore what
  /// the model may have wrong; its title says so, with the predicted loss.
  bool exploratory = false;
  std::vector<citation> citations;
};

/// The Proposal logic's answer: three distinct proposals, best first.
struct proposal_set {
  bottleneck_class bottleneck = bottleneck_class::unknown;
  std::string baseline;           ///< the current mesh or configuration
  double model_step_ms = 0;       ///< the model's prediction for the baseline
  double measured_step_ms = 0;    ///< from the profile, 0 when none
  std::vector<proposal> proposals;
  std::vector<std::string> notes; ///< calibration, filters, what was not possible
};

} // namespace paratune
