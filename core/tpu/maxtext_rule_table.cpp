#include "core/tpu/maxtext_rule_table.hpp"

#include <array>

namespace paratune {

namespace {

using enum maxtext_rule;
using enum maxtext_effect;
using enum python_error;

constexpr std::string_view types_py = "configs/types.py";
constexpr std::string_view max_utils_py = "utils/max_utils.py";
constexpr std::string_view base_yml = "configs/base.yml";
constexpr std::string_view decoders_py = "layers/decoders.py";
constexpr std::string_view pyconfig_py = "configs/pyconfig.py";

// In the order MaxText meets them: pyconfig's loading of the config
// (pyconfig.py: the model file, then pydantic's field types), its
// validation (types.py), the mesh (maxtext_utils.create_device_mesh calling
// max_utils.fill_unspecified_mesh_axes), then the model's layers.
constexpr std::array maxtext_rows = {
  // validate_no_keys_overridden_twice: with model_name set and
  // override_model_config false, a key both the model file and the command
  // line set must have one value (compared after OmegaConf reads both).
  // MaxText's two string pieces join without a space.
  maxtext_rule_row{model_keys_overridden, "model_keys_overridden", pyconfig_py, 147, refuses,
    value,
    "Keys {keys} are overridden by both model config and CLI/kwargs with different values."
    "This is not allowed, unless setting `override_model_config=True`."},
  // config_class(**pydantic_kwargs): model_name is a Literal of the model
  // files' names (types.py:216-296).
  maxtext_rule_row{model_name_known, "model_name_known", pyconfig_py, 576, refuses, validation,
    "1 validation error for MaxTextConfig model_name: Input should be one of configs/types.py's "
    "ModelName values [type=literal_error, input_value='{value}', input_type=str]"},
  // The same call: decoder_block is a DecoderBlockType (common_types.py:92).
  maxtext_rule_row{decoder_block_known, "decoder_block_known", pyconfig_py, 576, refuses,
    validation,
    "1 validation error for MaxTextConfig decoder_block: Input should be one of "
    "common/common_types.py's DecoderBlockType values [type=enum, input_value='{value}', "
    "input_type=str]"},
  // calculate_global_batch_sizes: micro = int(devices * per_device_batch_size),
  // global = int(micro * gradient_accumulation_steps), devices being every
  // chip of every slice (num_target_devices).
  maxtext_rule_row{global_batch_trained, "global_batch_trained", types_py, 3466, changes, value,
    "MaxText trains int(int({devices} devices x per_device_batch_size {per_device}) x "
    "gradient_accumulation_steps {steps}) = {trained} sequences per step, not {batch}"},
  // if self.num_experts > 1: if self.moe_mlp_dim <= 0: raise ValueError(...)
  maxtext_rule_row{moe_mlp_dim_positive, "moe_mlp_dim_positive", types_py, 3895, refuses, value,
    "moe_mlp_dim must be positive for MoE models (num_experts > 1)"},
  // is_fully_moe (interleave_moe_layer_step 1, first_num_dense_layers 0,
  // inhomogeneous_layer_cycle_interval 1, base.yml's defaults) and the two
  // widths differ: raise, except for qwen3_moe and gemma4 decoder blocks.
  maxtext_rule_row{fully_moe_mlp_dims, "fully_moe_mlp_dims", types_py, 3908, refuses, value,
    "For a fully MoE model, base_mlp_dim must equal base_moe_mlp_dim. "
    "Got base_mlp_dim={base_mlp_dim}, base_moe_mlp_dim={base_moe_mlp_dim}."},
  // mesh_axes lists diloco, data, stage, fsdp, fsdp_transpose, context,
  // context_usp_ulysses, context_autoregressive, tensor, tensor_sequence,
  // expert, autoregressive: `sequence` left it in April 2026, so
  // ici_sequence_parallelism and dcn_sequence_parallelism are read by no axis.
  maxtext_rule_row{sequence_axis_ignored, "sequence_axis_ignored", base_yml, 531, changes, value,
    "{key}={size} is ignored: 'sequence' is not one of MaxText's mesh_axes"},
  // fill_unspecified_mesh_axes(ici_parallelism, num_devices_per_slice, "ICI")
  maxtext_rule_row{ici_product, "ici_product", max_utils_py, 479, refuses, assertion,
    "Number of devices per slice {target} does not match the product of the ICI parallelism "
    "{product}"},
  // fill_unspecified_mesh_axes(dcn_parallelism, num_slices, "DCN"), with
  // more than one slice only.
  maxtext_rule_row{dcn_product, "dcn_product", max_utils_py, 479, refuses, assertion,
    "Number of slices {target} does not match the product of the DCN parallelism {product}"},
  // get_remat_policy: every other name falls to the last branch's assert.
  maxtext_rule_row{remat_policy_known, "remat_policy_known", decoders_py, 432, refuses, assertion,
    "Remat policy needs to be on list of remat policies"},
  // get_remat_policy logs this twice, then runs minimal_with_context.
  maxtext_rule_row{remat_minimal_flash, "remat_minimal_flash", decoders_py, 354, changes,
    assertion,
    "WARNING: 'minimal_flash' will be deprecated soon, please use 'minimal_with_context' "
    "instead."},
  // `none` skips get_remat_policy's branches: the Linen decoder passes
  // policy=None to nn.remat (decoders.py:563), which saves nothing, as
  // `full` does; the NNX decoder (nnx_decoders.py:1952, picked by
  // pure_nnx_decoder, models.py:367) calls the layer without checkpointing.
  maxtext_rule_row{remat_none_decoder, "remat_none_decoder", decoders_py, 350, changes, assertion,
    "remat_policy=none with pure_nnx_decoder=false saves nothing (Linen's nn.remat with "
    "policy=None), as full does"},
};

} // namespace

std::span<const maxtext_rule_row> maxtext_rule_table() { return maxtext_rows; }

const maxtext_rule_row& row_of(maxtext_rule r) {
  for (const auto& row : maxtext_rows)
    if (row.rule == r)
      return row;
  return maxtext_rows.front();  // unreachable: every rule has a row (tested)
}

} // namespace paratune
