#pragma once

#include <vector>

#include "core/cluster_spec.hpp"
#include "core/model_spec.hpp"
#include "core/perf/device_profile.hpp"
#include "core/perf/perf_model.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// Everything the memory, time and FLOP models share, derived once per
/// prediction: model dimensions as doubles, parallel sizes, and the local
/// (per-GPU) shapes. All sizes are element counts unless named *_bytes.
struct perf_context {
  const model_spec* model = nullptr;
  const cluster_spec* cluster = nullptr;
  const training_config* config = nullptr;
  const device_profile* profile = nullptr;
  perf_calibration cal;
  precision prec = precision::bf16;

  // Model dimensions.
  double h = 0, heads = 0, kv_heads = 0, head_dim = 0;
  double q = 0;        ///< query width: heads * head_dim
  double kv = 0;       ///< key (or value) width: kv_heads * head_dim
  double ffn = 0;      ///< dense MLP hidden
  double moe_ffn = 0;  ///< one routed expert's hidden
  double shared_ffn = 0; ///< the shared expert's hidden (MoE), 0 for none
  double experts = 0, topk = 0;
  double vocab = 0;    ///< padded for TP
  double layers = 0;
  bool swiglu = false, moe = false, dropout = false, tied = false, rmsnorm = true;
  bool rotary = false; ///< rotary position embedding (Llama-style models)
  bool learned_positions = false; ///< a trained position table (GPT-style models)
  bool qk_norm = false;           ///< Q and K normalized per head (Qwen3)

  // Parallel layout.
  int world = 1, tp = 1, pp = 1, cp = 1, ep = 1, vpp = 1, dp = 1;
  int micro_batches = 1;   ///< m per pipeline per iteration
  double mbs = 1, seq = 0, gbs = 1;
  bool sp = false;
  std::vector<int> stage_layers;

  // Local shapes.
  double seq_local = 0;     ///< s / cp
  double tokens = 0;        ///< b * s / cp: rows of a layer's GEMMs
  double kv_local = 0;      ///< key width on one TP rank (replicated when tp > kv_heads)

  // Parameters per layer and in the embedding (all ranks together).
  double layer_params = 0;         ///< dense part of one layer (attention, norms, dense MLP, router)
  /// The part of layer_params every TP rank holds whole: norms, the router,
  /// and the biases of the row-parallel projections.
  double layer_replicated_params = 0;
  double layer_expert_params = 0;  ///< routed experts of one layer
  double embedding_params = 0;     ///< V * h, one copy
  double position_params = 0;      ///< the learned position table, seq * h (first stage, whole on each TP rank)

  double weight_bytes = 2;  ///< bytes per parameter of the compute copy
};

perf_context make_context(const model_spec& m, const cluster_spec& cluster,
                          int world_size, const training_config& c, precision p,
                          const perf_calibration& cal);

} // namespace paratune
