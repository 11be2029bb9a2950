#pragma once

#include <string>
#include <vector>

#include "core/megatron_rule_table.hpp"
#include "core/model_spec.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// One broken start-up rule.
struct rule_violation {
  std::string rule;     ///< the table's stable id ("heads_tp"), or paratune's own ("sp_without_tp")
  std::string message;  ///< Megatron-LM's text with the values filled in (paratune's own text
                        ///< for paratune's rules)
  /// The table row, or nullptr for one of paratune's own refusals: a
  /// configuration Megatron-LM would start, but as another one.
  const megatron_rule_row* source = nullptr;

  /// The last line of the traceback Python prints: "ValueError: num_attention_heads (14) ...",
  /// or "AssertionError" alone for a bare assert. Empty for paratune's own rules.
  std::string python_line() const;
};

/// The Megatron-LM arguments the rules read beyond the model and the
/// configuration, as a command line sets them. Defaults are Megatron-LM's.
struct megatron_flags {
  int layers_per_virtual_stage = 0;  ///< --num-layers-per-virtual-pipeline-stage (0: not given)
  int virtual_stages = 0;            ///< --num-virtual-stages-per-pipeline-rank (0: not given)
  int max_position_embeddings = 0;   ///< --max-position-embeddings (0: not given)
  bool recompute_method_given = false;  ///< --recompute-method
  bool recompute_layers_given = false;  ///< --recompute-num-layers
  bool fp16 = false;                 ///< --fp16
  bool bf16 = false;                 ///< --bf16
  bool overlap_p2p = true;           ///< false with --no-overlap-p2p-communication
  bool bias_linear = true;           ///< add_bias_linear; false with --disable-bias-linear
  int expert_tp = 0;                 ///< --expert-tensor-parallel-size (0: tensor parallel size)
  int router_topk = 2;               ///< --moe-router-topk as given
  bool router_pre_softmax = false;   ///< --moe-router-pre-softmax
  bool router_softmax = true;        ///< --moe-router-score-function softmax (the default)
  bool router_sinkhorn = false;      ///< --moe-router-load-balancing-type sinkhorn
  bool cross_entropy_te = false;     ///< --cross-entropy-fusion-impl te
  bool torch_fsdp2 = false;          ///< --use-torch-fsdp2
  bool megatron_fsdp = false;        ///< --use-megatron-fsdp
  bool overlap_moe_ep_comm = false;  ///< --overlap-moe-expert-parallel-comm
  // Not flags: what validate_args reads from the process and the device.
  /// CUDA_DEVICE_MAX_CONNECTIONS is "1" in the environment. True by default:
  /// paratune's trials get it whenever the rule asks (framework_environment).
  bool one_kernel_queue = true;
  /// get_device_arch_version(): the GPUs' compute capability major (8 A100,
  /// 9 H100/H200, 10 Blackwell); 0 when unknown, read as before Blackwell.
  int device_arch = 0;

  friend bool operator==(const megatron_flags&, const megatron_flags&) = default;
};

/// The flags paratune renders for `c` on `m` (render_megatron_args): the
/// virtual pipeline as layers per virtual stage, or as stages per rank with
/// an uneven first or last stage; the model's own linear biases (a MoE model
/// with biases starts only with expert tensor parallelism 1, and the rules
/// say so); the router's pre-softmax with top-1.
megatron_flags rendered_flags(const model_spec& m, const training_config& c);

/// Megatron-LM's refusals of a command line: the model, the configuration as
/// parsed (its vpp is the one Megatron derives), the flags and the world size.
/// Every rule that trips, in the table's order; the first is the one
/// Megatron-LM raises.
std::vector<rule_violation> check_megatron_arguments(const model_spec& m, const training_config& c,
                                                     const megatron_flags& f, int world_size);

/// paratune's guard: every rule that makes Megatron-LM refuse `c` on
/// `world_size` devices as paratune renders it, and before them paratune's
/// own refusals (sizes below 1; sequence parallelism without tensor
/// parallelism and recompute_layers beyond a stage, which Megatron-LM runs
/// as another configuration; a vpp paratune cannot render as layers per
/// virtual stage). Empty when the configuration would start as itself.
std::vector<rule_violation> check_megatron_rules(const model_spec& m,
                                                 const training_config& c,
                                                 int world_size);

/// Layers on each pipeline stage (uneven first/last split honoured; with
/// pp_account_embedding/pp_account_loss the first/last stage builds one layer
/// less, as Megatron's get_num_layers_to_build). Empty when the split is invalid.
std::vector<int> stage_layers(const model_spec& m, const training_config& c);

/// The layer count Megatron splits over the pipeline: the transformer layers
/// plus one for the embedding and one for the loss when they are accounted.
int pipeline_split_layers(const model_spec& m, const training_config& c);

} // namespace paratune
