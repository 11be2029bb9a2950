#pragma once

#include <string>
#include <string_view>

namespace paratune {

/// MaxText's remat_policy (layers/decoders.py, get_remat_policy): which
/// activations of a decoder layer the backward pass finds saved and which
/// it recomputes. The names are MaxText's; `none` saves everything, which
/// is what MaxText's NNX decoder does with it (the Linen decoder saves
/// nothing: core/tpu/maxtext_rule_table.hpp, remat_none_decoder).
enum class remat_policy {
  none,
  minimal,                           ///< every matmul output without batch dims
  minimal_with_context,              ///< minimal plus the attention output (was minimal_flash)
  save_dot_with_context_except_mlp,  ///< qkv, attention output, out projection
  save_dot_except_mlpwi,             ///< qkv, out projection, MLP down projection
  save_dot_except_mlp,               ///< qkv, out projection
  save_qkv_proj,                     ///< qkv
  save_out_proj,                     ///< out projection
  qkv_proj_offloaded,                ///< qkv, kept in host memory
  minimal_offloaded,                 ///< minimal's tensors, kept in host memory
  full,                              ///< only the layer's input
};

const char* to_string(remat_policy p);
/// Accepts MaxText's names (above), and `minimal_flash`, MaxText's
/// deprecated name of minimal_with_context (layers/decoders.py:354), read
/// as that. Returns false for anything else.
bool parse_remat_policy(std::string_view text, remat_policy& out);
/// "none, minimal, ..., full": for error messages.
std::string remat_policy_names();

/// What a policy means for one layer: the tensors kept for the backward
/// pass and the forward work the backward pass redoes to get the rest.
/// Follows from the saved set: out projection's backward needs the
/// attention output (else attention is recomputed, which needs q, k, v),
/// the MLP's down projection needs the up projection's output (else it is
/// recomputed from the MLP input, which needs the out projection's output).
/// JAX drops recomputation nothing needs, so the down projection never is.
struct remat_plan {
  bool saves_everything = false;  ///< none: every intermediate stays in HBM
  // Kept (in HBM, or in host memory when offloaded). mlp_out is always
  // false: a policy may name it, but nothing in the backward pass reads it.
  bool qkv = false, context = false, out_proj = false, mlp_in = false, mlp_out = false;
  bool offloaded = false;         ///< the kept tensors live in host memory
  // Recomputed in the backward pass.
  bool recompute_qkv = false, recompute_attention = false, recompute_out = false,
       recompute_mlp_in = false;

  bool recomputes_any() const {
    return recompute_qkv || recompute_attention || recompute_out || recompute_mlp_in;
  }
};

remat_plan plan_of(remat_policy p);

} // namespace paratune
