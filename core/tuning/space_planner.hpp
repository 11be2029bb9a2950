#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/perf/perf_model.hpp"

namespace paratune {

/// A configuration space: for each key, the values it may take (as text,
/// like default_search_space returns). Keys absent keep the base value.
using config_space = std::map<std::string, std::vector<std::string>>;

/// What to plan: the job and the space to enumerate around `base`.
struct plan_request {
  model_spec model;
  cluster_spec cluster;
  int world_size = 0;
  precision prec = precision::bf16;
  training_config base;      ///< fixed keys (seq, gbs, ...) and defaults
  config_space space;        ///< enumerated keys; every combination is a candidate
  std::size_t top_k = 10;
  perf_calibration cal = {};
};

/// One configuration that starts and fits, with its prediction: the best
/// variant of its layout (plan_layout).
struct planned_config {
  training_config config;
  perf_prediction prediction;
  std::size_t variants = 0;  ///< the layout's configurations that start and fit, this one included
};

/// The outcome of enumerating a space: the best fitting configurations and
/// why the others were dropped.
struct plan_result {
  std::size_t candidates = 0;     ///< combinations enumerated
  std::size_t rule_rejected = 0;  ///< broke at least one Megatron rule
  /// Rule id -> candidates breaking it. A candidate breaking two rules
  /// counts under both, so these may sum to more than rule_rejected.
  std::map<std::string, std::size_t> rejected_by_rule;
  /// Rule id -> Megatron's message for the first candidate that broke it.
  std::map<std::string, std::string> rule_example;
  /// Started, but tune's memory screen refuses it before any run
  /// (memory_screen with no history): predicted over the device, or beyond
  /// it even at the low end of the model's measured error.
  std::size_t memory_rejected = 0;
  std::size_t fitting = 0;         ///< passed both
  std::size_t layouts = 0;         ///< distinct layouts among those
  /// At most top_k layouts, best first, each by its best variant.
  std::vector<planned_config> top;
};

/// The keys of `space` with unknown names or values that do not parse
/// raise input_error naming them; an empty value list too.
void check_space(const config_space& space);

/// Number of combinations `space` holds (product of its value counts).
std::size_t space_size(const config_space& space);

/// Replaces (or adds) the keys given in `overrides` ("tp=1|2,cp=2"):
/// narrows or extends a space. Throws input_error for bad text.
config_space override_space(config_space space, const std::string& overrides);

/// A configuration's layout: how the GPUs are split (tp, pp, dp, cp, ep) and
/// the micro batch, "tp=2 pp=1 dp=4 cp=1 ep=1 mbs=1". The other keys
/// (recompute, overlap and sharding flags, vpp, uneven stages) make variants
/// of a layout.
std::string plan_layout(const training_config& c, int world_size);

/// Enumerates every combination of `r.space` over `r.base`, drops those
/// that break a Megatron rule or that tune's memory screen refuses, groups the rest by
/// layout and ranks the layouts by their best variant's predicted tokens/s
/// per GPU (ties: lower peak memory, then enumeration order, so the result
/// is deterministic).
plan_result plan_space(const plan_request& r);

} // namespace paratune
