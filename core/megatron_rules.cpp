#include "core/megatron_rules.hpp"

namespace paratune {

namespace {

using violations = std::vector<rule_violation>;
using std::to_string;

void check_positive(const training_config& c, violations& out) {
  const std::pair<const char*, int> sizes[] = {
    {"tensor_model_parallel_size", c.tp}, {"pipeline_model_parallel_size", c.pp},
    {"context_parallel_size", c.cp}, {"expert_model_parallel_size", c.ep},
    {"virtual_pipeline_model_parallel_size", c.vpp},
    {"micro_batch_size", c.mbs}, {"global_batch_size", c.gbs},
    {"seq_length", c.seq}};
  for (auto [name, v] : sizes)
    if (v < 1)
      out.push_back({"positive", std::string(name) + " must be positive, got "
                                   + to_string(v)});
}

void check_world(const training_config& c, int world, violations& out) {
  const int64_t total = c.model_parallel();
  if (total < 1 || world % total != 0)
    out.push_back({"world_divisible",
                   "world size (" + to_string(world)
                     + ") is not divisible by total_model_size (total_model_size="
                     + to_string(total) + ")"});
}

void check_heads(const model_spec& m, const training_config& c, violations& out) {
  if (m.head_dim == 0 && m.hidden % m.heads != 0)
    out.push_back({"hidden_heads", "AssertionError (hidden_size % "
                                   "num_attention_heads == 0)"});
  if (m.heads % c.tp != 0)
    out.push_back({"heads_tp", "num_attention_heads (" + to_string(m.heads)
                                 + ") must be a multiple of "
                                   "tensor_model_parallel_size ("
                                 + to_string(c.tp) + ")."});
  const int g = m.kv_heads;
  if (g % c.tp != 0 && c.tp % g != 0)
    out.push_back({"query_groups_tp",
                   "num_query_groups (" + to_string(g)
                     + ") must be a multiple or divisor of "
                       "tensor_model_parallel_size ("
                     + to_string(c.tp) + ")."});
}

void check_batch(const training_config& c, int world, violations& out) {
  const int dp = c.data_parallel(world);
  if (dp == 0)
    return; // already reported by check_world
  if (c.gbs % (int64_t(c.mbs) * dp) != 0)
    out.push_back({"batch_divisible",
                   "global batch size (" + to_string(c.gbs)
                     + ") is not divisible by micro batch size ("
                     + to_string(c.mbs) + ") times data parallel size ("
                     + to_string(dp) + ")"});
}

// Megatron-LM's pipeline split rules (arguments.py and TransformerConfig's
// __post_init__; get_num_layers_to_build in transformer_block.py): accounted
// embedding and loss count as layers, and cannot be mixed with an uneven
// first/last stage.
void check_split(const model_spec& m, const training_config& c, violations& out) {
  const bool uneven = c.first_pp_layers > 0 || c.last_pp_layers > 0;
  const bool accounted = c.pp_account_embedding || c.pp_account_loss;
  const int split = pipeline_split_layers(m, c);
  if (uneven && accounted)
    out.push_back({"uneven_accounted",
                   "Does not support standalone embedding stage and standalone loss stage "
                   "with uneven pp (--account-for-embedding-in-pipeline-split or "
                   "--account-for-loss-in-pipeline-split with --decoder-first/last-pipeline-"
                   "num-layers)"});
  else if (uneven && c.pp == 1)
    out.push_back({"uneven_needs_pp",
                   "--decoder-first-pipeline-num-layers and "
                   "--decoder-last-pipeline-num-layers need "
                   "pipeline_model_parallel_size > 1"});
  else if (uneven && stage_layers(m, c).empty())
    out.push_back({"uneven_split",
                   "num_layers (" + to_string(m.layers)
                     + ") minus the first (" + to_string(c.first_pp_layers)
                     + ") and last (" + to_string(c.last_pp_layers)
                     + ") pipeline stage layers is not divisible by the "
                       "remaining pipeline stages"});
  else if (!uneven && split % c.pp != 0)
    out.push_back({"layers_pp", "Number of layers should be divisible by the "
                                "pipeline-model-parallel size"
                                + (accounted ? " (num_layers " + to_string(m.layers) + " + "
                                                 + to_string(split - m.layers)
                                                 + " for the accounted embedding/loss = "
                                                 + to_string(split) + ")"
                                             : std::string())});
}

void check_pipeline(const model_spec& m, const training_config& c,
                    int world, violations& out) {
  check_split(m, c, out);
  if (c.vpp <= 1)
    return;
  if (c.pp <= 2)
    out.push_back({"vpp_needs_pp", "pipeline-model-parallel size should be "
                                   "greater than 2 with interleaved schedule"});
  else if (pipeline_split_layers(m, c) % (int64_t(c.pp) * c.vpp) != 0)
    out.push_back({"vpp_layers", "number of layers per pipeline stage must be "
                                 "divisible by number of layers per virtual "
                                 "pipeline stage"});
  const int micro = c.micro_batches(world);
  if (micro > 0 && micro % c.pp != 0)
    out.push_back({"vpp_microbatches",
                   "number of microbatches (" + to_string(micro)
                     + ") is not divisible by pipeline-model-parallel-size ("
                     + to_string(c.pp) + ") when using interleaved schedule"});
  if (c.first_pp_layers > 0 || c.last_pp_layers > 0)
    out.push_back({"vpp_uneven", "uneven pipeline stages are not supported "
                                 "with the interleaved schedule"});
}

void check_features(const training_config& c, violations& out) {
  if (c.sp && c.tp == 1)
    out.push_back({"sp_needs_tp", "sequence parallelism needs "
                                  "tensor_model_parallel_size > 1"});
  if (c.overlap_param && !c.dist_opt)
    out.push_back({"overlap_param_needs_dist_opt",
                   "--overlap-param-gather only supported with distributed "
                   "optimizer"});
  if (c.cp > 1 && c.seq % (2 * c.cp) != 0)
    out.push_back({"seq_cp", "seq-length should be a multiple of 2 * "
                             "context-parallel-size if context-parallel-size > 1."});
  if (c.recompute_layers > 0 && c.recompute != recompute_mode::full)
    out.push_back({"recompute_layers_needs_full",
                   "--recompute-num-layers is only valid with "
                   "--recompute-granularity full"});
}

void check_recompute_layers(const model_spec& m, const training_config& c,
                            violations& out) {
  if (c.recompute != recompute_mode::full || c.recompute_layers == 0)
    return;
  const auto stages = stage_layers(m, c);
  if (stages.empty())
    return;
  int fewest = stages.front();
  for (int l : stages)
    fewest = std::min(fewest, l);
  const int per_chunk = fewest / std::max(1, c.vpp);
  if (c.recompute_layers > per_chunk)
    out.push_back({"recompute_layers_range",
                   "recompute_num_layers (" + to_string(c.recompute_layers)
                     + ") must be between 1 and the layers per pipeline rank ("
                     + to_string(per_chunk) + ")"});
}

void check_experts(const model_spec& m, const training_config& c, int world,
                   violations& out) {
  if (c.ep > 1 && !m.is_moe()) {
    out.push_back({"ep_needs_experts", "num_experts must be non None to use "
                                       "expert model parallelism"});
    return;
  }
  if (!m.is_moe())
    return;
  if (m.experts % c.ep != 0)
    out.push_back({"experts_ep", "Number of experts should be a multiple of "
                                 "expert model parallel_size."});
  const int64_t expert_grid = int64_t(c.tp) * c.ep * c.pp;
  if (world % expert_grid != 0)
    out.push_back({"world_ep", "world_size (" + to_string(world)
                                 + ") is not divisible by "
                                   "expert_tensor_model_pipeline_parallel size ("
                                 + to_string(expert_grid) + ")"});
}

} // namespace

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

std::vector<rule_violation> check_megatron_rules(const model_spec& m,
                                                 const training_config& c,
                                                 int world_size) {
  violations out;
  check_positive(c, out);
  if (!out.empty())
    return out; // the other checks divide by these sizes
  check_world(c, world_size, out);
  check_heads(m, c, out);
  check_batch(c, world_size, out);
  check_pipeline(m, c, world_size, out);
  check_features(c, out);
  check_recompute_layers(m, c, out);
  check_experts(m, c, world_size, out);
  return out;
}

} // namespace paratune
