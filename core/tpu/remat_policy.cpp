#include "core/tpu/remat_policy.hpp"

#include <array>
#include <utility>

namespace paratune {

namespace {

constexpr std::array<std::pair<remat_policy, const char*>, 11> names{{
    {remat_policy::none, "none"},
    {remat_policy::minimal, "minimal"},
    {remat_policy::minimal_with_context, "minimal_with_context"},
    {remat_policy::save_dot_with_context_except_mlp, "save_dot_with_context_except_mlp"},
    {remat_policy::save_dot_except_mlpwi, "save_dot_except_mlpwi"},
    {remat_policy::save_dot_except_mlp, "save_dot_except_mlp"},
    {remat_policy::save_qkv_proj, "save_qkv_proj"},
    {remat_policy::save_out_proj, "save_out_proj"},
    {remat_policy::qkv_proj_offloaded, "qkv_proj_offloaded"},
    {remat_policy::minimal_offloaded, "minimal_offloaded"},
    {remat_policy::full, "full"},
}};

// The tensors each policy keeps, before recomputation is derived.
remat_plan kept_by(remat_policy p) {
  remat_plan k;
  switch (p) {
    case remat_policy::none: k.saves_everything = true; break;
    case remat_policy::minimal:
    case remat_policy::minimal_offloaded:
      k.qkv = k.out_proj = k.mlp_in = k.mlp_out = true;
      break;
    case remat_policy::minimal_with_context:
      k.qkv = k.context = k.out_proj = k.mlp_in = k.mlp_out = true;
      break;
    case remat_policy::save_dot_with_context_except_mlp:
      k.qkv = k.context = k.out_proj = true;
      break;
    case remat_policy::save_dot_except_mlpwi: k.qkv = k.out_proj = k.mlp_out = true; break;
    case remat_policy::save_dot_except_mlp: k.qkv = k.out_proj = true; break;
    case remat_policy::save_qkv_proj:
    case remat_policy::qkv_proj_offloaded: k.qkv = true; break;
    case remat_policy::save_out_proj: k.out_proj = true; break;
    case remat_policy::full: break;
  }
  k.offloaded = p == remat_policy::qkv_proj_offloaded || p == remat_policy::minimal_offloaded;
  // JAX keeps only the residuals the backward pass reads: nothing reads the
  // down projection's output (the residual add's gradient does not need it).
  k.mlp_out = false;
  return k;
}

} // namespace

const char* to_string(remat_policy p) {
  for (const auto& [policy, name] : names)
    if (policy == p)
      return name;
  return "?";
}

bool parse_remat_policy(std::string_view text, remat_policy& out) {
  // The old name still runs in MaxText, with a warning: read it as the new.
  if (text == "minimal_flash") {
    out = remat_policy::minimal_with_context;
    return true;
  }
  for (const auto& [policy, name] : names)
    if (text == name) {
      out = policy;
      return true;
    }
  return false;
}

std::string remat_policy_names() {
  std::string out;
  for (const auto& [policy, name] : names)
    out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

remat_plan plan_of(remat_policy p) {
  remat_plan r = kept_by(p);
  if (r.saves_everything)
    return r;
  // The MLP's up projection is needed by the down projection's backward.
  r.recompute_mlp_in = !r.mlp_in;
  // Recomputing it needs the MLP input, i.e. the out projection's output.
  r.recompute_out = r.recompute_mlp_in && !r.out_proj;
  // The out projection's backward (and its recomputation) needs the
  // attention output.
  r.recompute_attention = !r.context;
  // Attention (its backward, or its recomputation) needs q, k and v.
  r.recompute_qkv = !r.qkv;
  return r;
}

} // namespace paratune
