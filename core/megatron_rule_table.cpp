#include "core/megatron_rule_table.hpp"

#include <array>

#include "core/message_template.hpp"

namespace paratune {

namespace {

using enum megatron_rule;
using enum python_error;

constexpr std::string_view args_py = "megatron/training/arguments.py";
constexpr std::string_view config_py = "megatron/core/transformer/transformer_config.py";
constexpr std::string_view state_py = "megatron/core/parallel_state.py";
constexpr std::string_view schedules_py = "megatron/core/pipeline_parallel/schedules.py";

// Messages are Megatron-LM's as Python builds them: adjacent string literals
// join without a space, so "cannot be" "set" reads "cannot beset" there too.
constexpr std::array rule_rows = {
  // validate_args (megatron/training/arguments.py)
  megatron_rule_row{world_divisible, "world_divisible", args_py, 432, assertion,
    "world size ({world_size}) is not divisible by total_model_size "
    "(total_model_size={total_model_size})"},
  megatron_rule_row{eval_batch_divisible, "eval_batch_divisible", args_py, 715, assertion,
    "eval_global_batch_size ({eval_global_batch_size}) must be divisible by "
    "eval_micro_batch_size ({eval_micro_batch_size}) * data_parallel_size "
    "({data_parallel_size}) * gtp_weight_remat_size (1)"},
  megatron_rule_row{vpp_uneven_needs_stages, "vpp_uneven_needs_stages", args_py, 955, assertion,
    "please use --num-virtual-stages-per-pipeline-rank to specify virtual pipeline parallel "
    "degree when enable uneven pipeline parallelism"},
  megatron_rule_row{vpp_layers_pp, "vpp_layers_pp", args_py, 968, assertion,
    "number of layers of the model must be divisible pipeline model parallel size"},
  megatron_rule_row{vpp_layers_per_stage, "vpp_layers_per_stage", args_py, 972, assertion,
    "number of layers per pipeline stage must be divisible number of layers per virtual "
    "pipeline stage"},
  megatron_rule_row{layers_pp, "layers_pp", args_py, 997, assertion,
    "Number of layers should be divisible by the pipeline-model-parallel size"},
  megatron_rule_row{vpp_needs_pp, "vpp_needs_pp", args_py, 1002, assertion,
    "When interleaved schedule is used, pipeline-model-parallel size should be greater than 1"},
  megatron_rule_row{vpp_needs_pp_without_p2p_overlap, "vpp_needs_pp_without_p2p_overlap",
    args_py, 1006, assertion,
    "When interleaved schedule is used and p2p communication overlap is disabled, "
    "pipeline-model-parallel size should be greater than 2 to avoid having multiple p2p sends "
    "and recvs between same 2 ranks per communication batch"},
  megatron_rule_row{overlap_param_needs_dist_opt, "overlap_param_needs_dist_opt", args_py, 1026,
    assertion,
    "--overlap-param-gather only supported with distributed optimizer, megatron fsdp, or "
    "dist_muon"},
  megatron_rule_row{overlap_param_needs_overlap_grad, "overlap_param_needs_overlap_grad",
    args_py, 1028, assertion, "Must use --overlap-param-gather with --overlap-grad-reduce"},
  megatron_rule_row{fp16_with_bf16, "fp16_with_bf16", args_py, 1196, assertion, ""},
  megatron_rule_row{hidden_heads, "hidden_heads", args_py, 1332, assertion, ""},
  megatron_rule_row{seq_cp, "seq_cp", args_py, 1336, assertion,
    "seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1."},
  megatron_rule_row{max_position_seq, "max_position_seq", args_py, 1354, assertion,
    "max_position_embeddings ({max_position_embeddings}) must be greater than or equal to "
    "seq_length ({seq_length})."},
  megatron_rule_row{recompute_method_selective, "recompute_method_selective", args_py, 1426,
    assertion, "recompute method is not yet supported for selective recomputing granularity"},
  // Only on GPUs before Blackwell (get_device_arch_version() < 10), and not
  // with FSDP or overlap_moe_expert_parallel_comm, which only warn.
  megatron_rule_row{one_kernel_queue, "one_kernel_queue", args_py, 1477, assertion,
    "Using tensor model parallelism or context parallelism require setting the environment "
    "variable CUDA_DEVICE_MAX_CONNECTIONS to 1"},
  megatron_rule_row{ep_needs_experts, "ep_needs_experts", args_py, 1656, assertion,
    "num_experts must be non None to use expert model parallelism"},
  megatron_rule_row{experts_ep, "experts_ep", args_py, 1657, assertion,
    "Number of experts should be a multiple of expert model parallel_size."},
  megatron_rule_row{cross_entropy_fusion_te, "cross_entropy_fusion_te", args_py, 1698, assertion,
    "Transformer Engine cross entropy loss fusion is disabled due to stability issues. Use "
    "--cross-entropy-fusion-impl native, or omit --cross-entropy-loss-fusion."},
  // initialize_model_parallel, called by initialize_megatron before the model is built
  megatron_rule_row{world_expert_grid, "world_expert_grid", state_py, 882, runtime,
    "world_size ({world_size}) is not divisible by expert_tensor_model_pipeline_parallel size "
    "({expert_grid})"},
  // TransformerConfig.__post_init__, when pretrain_gpt.py builds the model
  megatron_rule_row{heads_tp, "heads_tp", config_py, 1447, value,
    "num_attention_heads ({num_attention_heads}) must be a multiple of "
    "tensor_model_parallel_size ({tensor_model_parallel_size})."},
  megatron_rule_row{query_groups_tp, "query_groups_tp", config_py, 1465, value,
    "num_query_groups ({num_query_groups}) must be a multiple or divisor of "
    "tensor_model_parallel_size ({tensor_model_parallel_size})."},
  megatron_rule_row{recompute_needs_method, "recompute_needs_method", config_py, 1914, value,
    "Using recompute_granularity: {recompute_granularity} so recompute_method must be "
    "\"block\" or \"uniform\""},
  megatron_rule_row{recompute_full_needs_layers, "recompute_full_needs_layers", config_py, 1920,
    value,
    "When using recompute_granularity: {recompute_granularity} recompute_num_layers must be "
    "between 1 and num_layers_per_pipeline_rank: {num_layers_per_pipeline_rank}"},
  megatron_rule_row{recompute_selective_layers, "recompute_selective_layers", config_py, 1929,
    value,
    "When using recompute_granularity: {recompute_granularity} recompute_num_layers must be "
    "None."},
  megatron_rule_row{uneven_accounted, "uneven_accounted", config_py, 2235, value,
    "num_layers_in_first_pipeline_stage and num_layers_in_last_pipeline_stage cannot beset at "
    "the same time with account_for_embedding_in_pipeline_splitand "
    "account_for_loss_in_pipeline_split"},
  megatron_rule_row{first_stage_vpp, "first_stage_vpp", config_py, 2312, value,
    "number of layers at first stage: {first}must be divisible by virtual pipelineparallel "
    "degree {vpp}"},
  megatron_rule_row{last_stage_vpp, "last_stage_vpp", config_py, 2331, value,
    "number of layers at last stage: {last}must be divisible by virtual pipelineparallel "
    "degree {vpp}"},
  megatron_rule_row{uneven_mismatch, "uneven_mismatch", config_py, 2342, value,
    "Mismatch: {middle_layers} middle layers remaining but {middle_stages} middle PP stages "
    "available."},
  megatron_rule_row{uneven_middle, "uneven_middle", config_py, 2350, value,
    "number of layers at middle stage: {middle_layers} must be divisible bythe middle pipeline "
    "model parallel size {middle_stages}"},
  megatron_rule_row{uneven_middle_vpp, "uneven_middle_vpp", config_py, 2364, value,
    "number of layers on each middle pipeline rank:{middle_per_rank} must be divisible by "
    "virtualpipeline parallel degree {vpp}"},
  megatron_rule_row{moe_bias_etp, "moe_bias_etp", config_py, 2614, assertion,
    "Bias in Moe is only supported when ETP==1"},
  megatron_rule_row{router_topk_one, "router_topk_one", config_py, 2669, value,
    "Please use --moe-router-pre-softmax when topk is 1."},
  // forward_backward_pipelining_with_interleaving, at the first iteration
  megatron_rule_row{vpp_microbatch_range, "vpp_microbatch_range", schedules_py, 1168, value,
    "The number of contiguous micro-batches in a virtual pipeline stageshould range in "
    "[PP={pp} , M={microbatches}]"},
  megatron_rule_row{vpp_microbatch_remainder, "vpp_microbatch_remainder", schedules_py, 1180,
    runtime,
    "The remainder of M (the total micro-batches) divided by N (number of contiguous "
    "micro-batches in a virtual pipeline stage) should be 0, or larger than or equal to the "
    "pipeline-parallel size, but it is {remainder}. Otherwise, it introduces dependency "
    "bubbles in the pipeline and reduces throughput."},
};

} // namespace

std::string_view python_error_name(python_error e) {
  switch (e) {
    case assertion: return "AssertionError";
    case value: return "ValueError";
    case runtime: return "RuntimeError";
    case validation: return "pydantic_core._pydantic_core.ValidationError";
  }
  return "Exception";
}

std::span<const megatron_rule_row> megatron_rule_table() { return rule_rows; }

const megatron_rule_row& megatron_rule_info(megatron_rule r) {
  for (const auto& row : rule_rows)
    if (row.rule == r)
      return row;
  return rule_rows.front(); // unreachable: every enumerator has a row (tested)
}

const megatron_rule_row* find_megatron_rule(std::string_view id) {
  for (const auto& row : rule_rows)
    if (row.id == id)
      return &row;
  return nullptr;
}

std::string render_rule_message(const megatron_rule_row& row,
                                const std::vector<std::pair<std::string_view, std::string>>& values) {
  return fill_placeholders(row.message, values);
}

} // namespace paratune
