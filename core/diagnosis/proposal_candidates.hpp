#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis_report.hpp"
#include "core/diagnosis/experiment_spec.hpp"
#include "core/tpu/tpu_mesh.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// A configuration the Proposal logic considered, predicted by a model.
struct candidate {
  std::optional<tpu_mesh> mesh;
  std::optional<training_config> config;
  std::string change;               ///< "data 4->8, model 4->2"
  std::vector<std::string> grown;   ///< axes or keys that grew
  std::vector<std::string> shrunk;
  double step_s = 0;                ///< model prediction
  double mfu = 0;
  double memory_gib = 0;
  double memory_limit_gib = 0;
  std::string metric;               ///< the bottleneck's quantity, e.g. "exposed model-axis collectives (s/step)"
  double metric_before = 0;
  double metric_after = 0;
  bool targeted = false;            ///< moves the diagnosed bottleneck's quantity the right way
  std::string title;
  std::string rationale;
  std::vector<std::string> tradeoffs;
};

/// What the profile or log says of the current layout.
struct baseline_evidence {
  bool ran = false;             ///< a measured step and no out-of-memory
  double memory_used_gib = 0;   ///< measured peak per device, 0 when unknown
};

/// The baseline and every valid candidate that fits in memory, unsorted.
struct candidate_pool {
  candidate baseline;
  /// False when the current layout does not fit in memory: then nothing
  /// is "slower" than it, and its predicted step time is only a reference.
  bool baseline_fits = true;
  /// Multiplies the model's memory of every layout so that the baseline
  /// matches what was measured (1 when nothing corrects it); the figures
  /// in `candidates` are already corrected.
  double memory_correction = 1;
  std::vector<candidate> candidates;
  std::vector<std::string> notes;
};

/// TPU: single moves of the mesh (a factor of one axis moved to another),
/// predicted with the mesh model; `targeted` per the diagnosed bottleneck.
candidate_pool mesh_candidates(const experiment_spec& exp, const diagnosis_report& report,
                               const baseline_evidence& evidence = {});

/// TPU: one mesh (a language model's, say) predicted and screened as the
/// single moves of `pool` are: its memory corrected, targeted, reasoned;
/// nothing when the mesh model refuses it or it does not fit.
std::optional<candidate> mesh_candidate(const experiment_spec& exp,
                                        const diagnosis_report& report,
                                        const candidate_pool& pool, const tpu_mesh& ici,
                                        const tpu_mesh& dcn);

/// GPU: single changes of the Megatron-LM configuration that address the
/// bottleneck, predicted with core/perf predict(); Megatron's start-up rules
/// checked.
candidate_pool megatron_candidates(const experiment_spec& exp, const diagnosis_report& report);

} // namespace paratune
