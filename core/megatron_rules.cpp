#include "core/megatron_rules.hpp"

#include <algorithm>
#include <optional>

#include "core/trial_environment.hpp"

namespace paratune {

std::string rule_violation::python_line() const {
  if (!source)
    return {};
  std::string line(python_error_name(source->error));
  if (!message.empty())
    line += ": " + message;
  return line;
}

namespace {

using std::to_string;
using rule_values = std::vector<std::pair<std::string_view, std::string>>;

// Python's % and // on ints: the result takes the divisor's sign, so a
// negative count of middle layers behaves as it does in Megatron-LM.
int64_t python_mod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}
int64_t python_div(int64_t a, int64_t b) { return (a - python_mod(a, b)) / b; }

// What the rules read, derived once the way Megatron-LM derives it.
struct rule_inputs {
  const model_spec& m;
  const training_config& c;
  const megatron_flags& f;
  int64_t world;
  int64_t total = 0;        // tp * pp * cp
  int64_t dp = 0;           // world / total, 0 when it does not divide
  int64_t split = 0;        // layers plus the accounted embedding and loss
  int64_t vpp = 1;          // virtual stages per rank as Megatron-LM derives them
  bool uneven = false;      // a first or last stage of its own size
  bool accounted = false;   // embedding or loss counted in the split
  int64_t microbatches = 0; // per iteration, 0 when the batch does not divide

  rule_inputs(const model_spec& model, const training_config& config, const megatron_flags& flags,
              int64_t world_size)
    : m(model), c(config), f(flags), world(world_size) {
    total = config.model_parallel();
    dp = (total > 0 && world % total == 0) ? world / total : 0;
    split = pipeline_split_layers(m, c);
    uneven = c.first_pp_layers > 0 || c.last_pp_layers > 0;
    accounted = c.pp_account_embedding || c.pp_account_loss;
    if (f.virtual_stages > 0)
      vpp = f.virtual_stages;
    else if (f.layers_per_virtual_stage > 0 && split % c.pp == 0
             && (split / c.pp) % f.layers_per_virtual_stage == 0)
      vpp = split / c.pp / f.layers_per_virtual_stage;
    const int64_t per_step = int64_t(c.mbs) * dp;
    microbatches = (per_step > 0 && c.gbs % per_step == 0) ? c.gbs / per_step : 0;
  }
  bool lpv_path() const { return f.layers_per_virtual_stage > 0 && f.virtual_stages == 0; }
  bool no_vpp_flag() const { return f.layers_per_virtual_stage == 0 && f.virtual_stages == 0; }
  int64_t expert_tp() const { return f.expert_tp > 0 ? f.expert_tp : c.tp; }
  const char* granularity() const { return c.recompute == recompute_mode::full ? "full" : "selective"; }
  int64_t middle_layers() const {
    return int64_t(m.layers) - c.first_pp_layers - c.last_pp_layers;
  }
  int64_t middle_stages() const {
    return int64_t(c.pp) - (c.first_pp_layers > 0) - (c.last_pp_layers > 0);
  }
};

// The predicate of each row: the values of its message when the rule
// trips, nullopt when it holds. A rule that needs what an earlier one
// refused (a data-parallel size, a whole micro-batch count) holds quietly.
std::optional<rule_values> tripped(megatron_rule r, const rule_inputs& in) {
  const auto& m = in.m;
  const auto& c = in.c;
  const auto& f = in.f;
  using enum megatron_rule;
  const auto s = [](int64_t v) { return to_string(v); };
  switch (r) {
    case world_divisible:
      if (in.world % in.total != 0)
        return rule_values{{"world_size", s(in.world)}, {"total_model_size", s(in.total)}};
      break;
    case eval_batch_divisible:
      if (in.dp > 0 && c.gbs % (int64_t(c.mbs) * in.dp) != 0)
        return rule_values{{"eval_global_batch_size", s(c.gbs)},
                           {"eval_micro_batch_size", s(c.mbs)},
                           {"data_parallel_size", s(in.dp)}};
      break;
    case vpp_uneven_needs_stages:
      if (in.lpv_path() && in.uneven)
        return rule_values{};
      break;
    case vpp_layers_pp:
      if (in.lpv_path() && !in.uneven && in.split % c.pp != 0)
        return rule_values{};
      break;
    case vpp_layers_per_stage:
      if (in.lpv_path() && !in.uneven && in.split % c.pp == 0
          && (in.split / c.pp) % f.layers_per_virtual_stage != 0)
        return rule_values{};
      break;
    case layers_pp:
      if (in.no_vpp_flag() && !in.uneven && in.split % c.pp != 0)
        return rule_values{};
      break;
    case vpp_needs_pp:
      if (in.vpp > 1 && f.overlap_p2p && c.pp <= 1)
        return rule_values{};
      break;
    case vpp_needs_pp_without_p2p_overlap:
      if (in.vpp > 1 && !f.overlap_p2p && c.pp <= 2)
        return rule_values{};
      break;
    case overlap_param_needs_dist_opt:
      if (c.overlap_param && !c.dist_opt)
        return rule_values{};
      break;
    case overlap_param_needs_overlap_grad:
      if (c.overlap_param && !c.overlap_grad)
        return rule_values{};
      break;
    case fp16_with_bf16:
      if (f.fp16 && f.bf16)
        return rule_values{};
      break;
    case hidden_heads:
      if (m.head_dim == 0 && m.hidden % m.heads != 0)
        return rule_values{};
      break;
    case seq_cp:
      if (c.cp > 1 && c.seq % (2 * int64_t(c.cp)) != 0)
        return rule_values{};
      break;
    case max_position_seq:
      if (f.max_position_embeddings > 0 && f.max_position_embeddings < c.seq)
        return rule_values{{"max_position_embeddings", s(f.max_position_embeddings)},
                           {"seq_length", s(c.seq)}};
      break;
    case recompute_method_selective:
      if (c.recompute == recompute_mode::selective && f.recompute_method_given)
        return rule_values{};
      break;
    case one_kernel_queue:
      if ((c.tp > 1 || c.cp > 1) && f.device_arch < 10 && !f.torch_fsdp2 && !f.megatron_fsdp
          && !f.overlap_moe_ep_comm && !f.one_kernel_queue)
        return rule_values{};
      break;
    case ep_needs_experts:
      if (c.ep > 1 && !m.is_moe())
        return rule_values{};
      break;
    case experts_ep:
      if (c.ep > 1 && m.is_moe() && m.experts % c.ep != 0)
        return rule_values{};
      break;
    case cross_entropy_fusion_te:
      if (c.fused_ce && f.cross_entropy_te)
        return rule_values{};
      break;
    case world_expert_grid: {
      const int64_t grid = in.expert_tp() * c.ep * c.pp;
      if (in.world % grid != 0)
        return rule_values{{"world_size", s(in.world)}, {"expert_grid", s(grid)}};
      break;
    }
    case heads_tp:
      if (m.heads % c.tp != 0)
        return rule_values{{"num_attention_heads", s(m.heads)},
                           {"tensor_model_parallel_size", s(c.tp)}};
      break;
    case query_groups_tp:
      if (m.kv_heads % c.tp != 0 && c.tp % m.kv_heads != 0)
        return rule_values{{"num_query_groups", s(m.kv_heads)},
                           {"tensor_model_parallel_size", s(c.tp)}};
      break;
    case recompute_needs_method:
      if (c.recompute == recompute_mode::full && !f.recompute_method_given)
        return rule_values{{"recompute_granularity", in.granularity()}};
      break;
    case recompute_full_needs_layers:
      if (c.recompute == recompute_mode::full && f.recompute_method_given
          && !f.recompute_layers_given)
        return rule_values{{"recompute_granularity", in.granularity()},
                           {"num_layers_per_pipeline_rank", s(m.layers / c.pp)}};
      break;
    case recompute_selective_layers:
      if (c.recompute == recompute_mode::selective && f.recompute_layers_given)
        return rule_values{{"recompute_granularity", in.granularity()}};
      break;
    case uneven_accounted:
      if (in.uneven && in.accounted)
        return rule_values{};
      break;
    case first_stage_vpp:
      if (in.uneven && !in.accounted && c.first_pp_layers > 0 && in.vpp > 1
          && c.first_pp_layers % in.vpp != 0)
        return rule_values{{"first", s(c.first_pp_layers)}, {"vpp", s(in.vpp)}};
      break;
    case last_stage_vpp:
      if (in.uneven && !in.accounted && c.last_pp_layers > 0 && in.vpp > 1
          && c.last_pp_layers % in.vpp != 0)
        return rule_values{{"last", s(c.last_pp_layers)}, {"vpp", s(in.vpp)}};
      break;
    case uneven_mismatch:
      if (in.uneven && !in.accounted && (in.middle_layers() != 0) != (in.middle_stages() != 0))
        return rule_values{{"middle_layers", s(in.middle_layers())},
                           {"middle_stages", s(in.middle_stages())}};
      break;
    case uneven_middle:
      if (in.uneven && !in.accounted && in.middle_stages() != 0
          && python_mod(in.middle_layers(), in.middle_stages()) != 0)
        return rule_values{{"middle_layers", s(in.middle_layers())},
                           {"middle_stages", s(in.middle_stages())}};
      break;
    case uneven_middle_vpp:
      if (in.uneven && !in.accounted && in.middle_stages() != 0 && in.vpp > 1) {
        const int64_t per_rank = python_div(in.middle_layers(), in.middle_stages());
        if (python_mod(per_rank, in.vpp) != 0)
          return rule_values{{"middle_per_rank", s(per_rank)}, {"vpp", s(in.vpp)}};
      }
      break;
    case moe_bias_etp:
      if (m.is_moe() && f.bias_linear && in.expert_tp() != 1)
        return rule_values{};
      break;
    case router_topk_one:
      if (f.router_topk == 1 && f.router_softmax && !f.router_pre_softmax && !f.router_sinkhorn)
        return rule_values{};
      break;
    case vpp_microbatch_range:
      if (in.vpp > 1 && c.pp > 1 && in.microbatches > 0 && in.microbatches < c.pp)
        return rule_values{{"pp", s(c.pp)}, {"microbatches", s(in.microbatches)}};
      break;
    case vpp_microbatch_remainder:
      if (in.vpp > 1 && c.pp > 1 && in.microbatches >= c.pp && in.microbatches % c.pp != 0)
        return rule_values{{"remainder", s(in.microbatches % c.pp)}};
      break;
  }
  return std::nullopt;
}

bool sizes_positive(const training_config& c, std::vector<rule_violation>& out) {
  const std::pair<const char*, int> sizes[] = {
    {"tensor_model_parallel_size", c.tp}, {"pipeline_model_parallel_size", c.pp},
    {"context_parallel_size", c.cp}, {"expert_model_parallel_size", c.ep},
    {"virtual_pipeline_model_parallel_size", c.vpp},
    {"micro_batch_size", c.mbs}, {"global_batch_size", c.gbs},
    {"seq_length", c.seq}};
  for (auto [name, v] : sizes)
    if (v < 1)
      out.push_back({"positive", std::string(name) + " must be positive, got " + to_string(v)});
  return out.empty();
}

} // namespace

std::vector<rule_violation> check_megatron_arguments(const model_spec& m, const training_config& c,
                                                     const megatron_flags& f, int world_size) {
  std::vector<rule_violation> out;
  if (!sizes_positive(c, out) || world_size < 1 || m.heads < 1 || m.kv_heads < 1)
    return out; // the rules divide by these sizes; value ranges keep them positive
  const rule_inputs in(m, c, f, world_size);
  for (const auto& row : megatron_rule_table())
    if (auto values = tripped(row.rule, in))
      out.push_back({std::string(row.id), render_rule_message(row, *values), &row});
  return out;
}

megatron_flags rendered_flags(const model_spec& m, const training_config& c) {
  megatron_flags f;
  const bool uneven = c.first_pp_layers > 0 || c.last_pp_layers > 0;
  if (c.vpp > 1 && c.pp > 0) {
    if (uneven)
      f.virtual_stages = c.vpp;
    else
      f.layers_per_virtual_stage = std::max(1, pipeline_split_layers(m, c) / c.pp / c.vpp);
  }
  f.max_position_embeddings = c.seq;
  f.recompute_method_given = f.recompute_layers_given = c.recompute == recompute_mode::full;
  f.bias_linear = m.bias_linear;
  // The trial's environment, as paratune builds it for this configuration.
  f.one_kernel_queue = false;
  for (const auto& [name, value] : framework_environment(c.tp, c.cp, false, {}))
    if (name == "CUDA_DEVICE_MAX_CONNECTIONS")
      f.one_kernel_queue = value == "1";
  if (m.is_moe()) {
    f.router_topk = m.topk;
    f.router_pre_softmax = m.topk == 1;
  }
  return f;
}

namespace {

// paratune's own refusals: configurations Megatron-LM starts, but as
// another one, so a trial of them would measure something else.
void check_paratune_own(const model_spec& m, const training_config& c,
                        std::vector<rule_violation>& out) {
  if (c.sp && c.tp == 1)
    out.push_back({"sp_without_tp",
                   "sequence parallelism needs tensor_model_parallel_size > 1: Megatron-LM "
                   "turns it off (\"Disabling sequence parallelism because tensor model "
                   "parallelism is disabled\") and runs the configuration without it"});
  const bool uneven = c.first_pp_layers > 0 || c.last_pp_layers > 0;
  const int split = pipeline_split_layers(m, c);
  if (c.vpp > 1 && !uneven && split % c.pp == 0 && (split / c.pp) % c.vpp != 0)
    out.push_back({"vpp_not_layers_per_stage",
                   to_string(split / c.pp) + " layers per pipeline stage do not split into "
                     + to_string(c.vpp) + " virtual stages: "
                     "--num-layers-per-virtual-pipeline-stage cannot say vpp=" + to_string(c.vpp)});
  if (c.recompute == recompute_mode::full && c.recompute_layers > 0) {
    const auto stages = stage_layers(m, c);
    if (!stages.empty()) {
      const int fewest = *std::min_element(stages.begin(), stages.end());
      const int per_chunk = fewest / std::max(1, c.vpp);
      if (c.recompute_layers > per_chunk)
        out.push_back({"recompute_layers_range",
                       "recompute_num_layers (" + to_string(c.recompute_layers)
                         + ") must be between 1 and the layers per pipeline rank ("
                         + to_string(per_chunk) + "): beyond that it recomputes the same "
                         "layers as " + to_string(per_chunk)});
    }
  }
  // Megatron-LM's uniform method checkpoints chunks of recompute_num_layers
  // layers (megatron/core/recompute.py:157-166 at d98e8a64), and paratune
  // renders recompute_layers 0 as --recompute-num-layers 1: the two are one
  // launch, and a trial of the second would run the first again.
  if (c.recompute == recompute_mode::full && !c.recompute_block && c.recompute_layers == 1)
    out.push_back({"recompute_uniform_one_layer",
                   "recompute_layers 1 with the uniform method is the launch of recompute_layers "
                   "0 (--recompute-num-layers 1: every layer its own recompute chunk, Megatron-LM's "
                   "default): the same run"});
  if (c.recompute != recompute_mode::full && c.recompute_layers > 0)
    out.push_back({"recompute_layers_needs_full",
                   "--recompute-num-layers is only valid with --recompute-granularity full: "
                   "paratune renders it only there"});
}

} // namespace

std::vector<rule_violation> check_megatron_rules(const model_spec& m,
                                                 const training_config& c,
                                                 int world_size) {
  std::vector<rule_violation> out;
  if (!sizes_positive(c, out))
    return out;
  check_paratune_own(m, c, out);
  auto megatron = check_megatron_arguments(m, c, rendered_flags(m, c), world_size);
  out.insert(out.end(), megatron.begin(), megatron.end());
  return out;
}

int pipeline_split_layers(const model_spec& m, const training_config& c) {
  return m.layers + int(c.pp_account_embedding) + int(c.pp_account_loss);
}

namespace {

// Even split with the embedding and/or loss counted as a layer: every rank
// gets (L + accounted) / pp, and the first (last) stage builds one less.
std::vector<int> accounted_stage_layers(const model_spec& m, const training_config& c) {
  const int split = pipeline_split_layers(m, c);
  if (split % c.pp != 0)
    return {};
  std::vector<int> out(c.pp, split / c.pp);
  out.front() -= int(c.pp_account_embedding);
  out.back() -= int(c.pp_account_loss);
  if (out.front() < 0 || out.back() < 0)
    return {};
  return out;
}

} // namespace

std::vector<int> stage_layers(const model_spec& m, const training_config& c) {
  if (c.pp < 1)
    return {};
  const bool uneven = c.first_pp_layers > 0 || c.last_pp_layers > 0;
  if (!uneven && (c.pp_account_embedding || c.pp_account_loss))
    return accounted_stage_layers(m, c);
  std::vector<int> out(c.pp, 0);
  int rest = m.layers;
  int free_stages = c.pp;
  if (c.pp > 1 && c.first_pp_layers > 0) {
    out.front() = c.first_pp_layers;
    rest -= c.first_pp_layers;
    --free_stages;
  }
  if (c.pp > 1 && c.last_pp_layers > 0) {
    out.back() = c.last_pp_layers;
    rest -= c.last_pp_layers;
    --free_stages;
  }
  if (rest < 0 || (free_stages == 0 && rest != 0))
    return {};
  if (free_stages > 0) {
    if (rest % free_stages != 0 || rest / free_stages == 0)
      return {};
    for (int i = 0; i < c.pp; ++i)
      if (out[i] == 0)
        out[i] = rest / free_stages;
  }
  return out;
}

} // namespace paratune
