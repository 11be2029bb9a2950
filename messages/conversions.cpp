#include "messages/conversions.hpp"

#include <map>

#include "core/input_error.hpp"
#include "messages/codec.hpp"

namespace paratune::wire {

model_wire to_wire(const model_spec& m) {
  model_wire w;
  w.name = m.name; w.family = m.family; w.size = m.size; w.layers = m.layers;
  w.hidden = m.hidden; w.heads = m.heads; w.kv_heads = m.kv_heads; w.head_dim = m.head_dim;
  w.ffn = m.ffn; w.vocab = m.vocab; w.swiglu = m.swiglu; w.tied_embeddings = m.tied_embeddings;
  w.rmsnorm = m.rmsnorm; w.experts = m.experts; w.topk = m.topk; w.moe_ffn = m.moe_ffn;
  w.max_seq = m.max_seq; w.shared_expert_ffn = m.shared_expert_ffn;
  w.position_embedding = to_string(m.position); w.rotary_base = m.rotary_base;
  w.rope_scaling_factor = m.rope_scaling_factor; w.norm_epsilon = m.norm_epsilon;
  w.bias_linear = m.bias_linear; w.qkv_bias = m.qkv_bias; w.qk_layernorm = m.qk_layernorm;
  return w;
}

model_spec from_wire(const model_wire& w) {
  model_spec m;
  m.name = w.name; m.family = w.family; m.size = w.size; m.layers = w.layers;
  m.hidden = w.hidden; m.heads = w.heads; m.kv_heads = w.kv_heads; m.head_dim = w.head_dim;
  m.ffn = w.ffn; m.vocab = w.vocab; m.swiglu = w.swiglu; m.tied_embeddings = w.tied_embeddings;
  m.rmsnorm = w.rmsnorm; m.experts = w.experts; m.topk = w.topk; m.moe_ffn = w.moe_ffn;
  m.max_seq = w.max_seq; m.shared_expert_ffn = w.shared_expert_ffn;
  if (w.position_embedding.empty()) {
    set_style_defaults(m); // stored before the record carried these
  } else {
    if (!parse_position_embedding(w.position_embedding, m.position))
      throw input_error("stored model '" + m.name + "' has an unknown position embedding '"
                        + w.position_embedding + "'");
    m.bias_linear = w.bias_linear;
  }
  m.rotary_base = w.rotary_base; m.rope_scaling_factor = w.rope_scaling_factor;
  m.norm_epsilon = w.norm_epsilon; m.qkv_bias = w.qkv_bias; m.qk_layernorm = w.qk_layernorm;
  if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.kv_heads <= 0 || m.vocab <= 0)
    throw input_error("stored model '" + m.name + "' has non-positive dimensions");
  return m;
}

cluster_wire to_wire(const cluster_spec& c) {
  cluster_wire w;
  w.name = c.name; w.device_name = c.device.name; w.ici_topology = c.ici_topology;
  w.peak_tflops_16 = c.device.peak_tflops_16; w.peak_tflops_fp8 = c.device.peak_tflops_fp8;
  w.hbm_gib = c.device.hbm_gib; w.hbm_gbps = c.device.hbm_gbps; w.tpu = c.device.tpu;
  w.devices_per_node = c.devices_per_node; w.max_nodes = c.max_nodes;
  w.scale_up = {c.scale_up.name, c.scale_up.gbps, c.scale_up.latency_us};
  w.scale_out = {c.scale_out.name, c.scale_out.gbps, c.scale_out.latency_us};
  return w;
}

cluster_spec from_wire(const cluster_wire& w) {
  cluster_spec c;
  c.name = w.name; c.ici_topology = w.ici_topology;
  c.device = {w.device_name, w.peak_tflops_16, w.peak_tflops_fp8, w.hbm_gib, w.hbm_gbps, w.tpu};
  c.devices_per_node = w.devices_per_node; c.max_nodes = w.max_nodes;
  c.scale_up = {w.scale_up.name, w.scale_up.gbps, w.scale_up.latency_us};
  c.scale_out = {w.scale_out.name, w.scale_out.gbps, w.scale_out.latency_us};
  if (c.devices_per_node <= 0 || c.device.peak_tflops_16 <= 0)
    throw input_error("stored cluster '" + c.name + "' is incomplete");
  return c;
}

config_map to_wire(const training_config& c) { return to_map(c); }

training_config from_wire(const config_map& m) {
  training_config c;
  for (const auto& [k, v] : m)
    set_value(c, k, v);
  return c;
}

suggestion_wire to_wire(const suggestion& s) {
  return {to_wire(s.config), s.text, s.group, s.why, s.predicted_tflops, s.predicted_peak_mib,
          s.rejected.value_or(""), s.oom_risk};
}

analysis_report to_wire(const analysis& a, int after_trial) {
  analysis_report r;
  r.after_trial = after_trial;
  r.health = to_string(a.health.state);
  r.directive = directive_of(a.health.state);
  r.base_trial = a.base_number;
  for (const auto& s : a.ranked)
    r.ranked.push_back(to_wire(s));
  for (const auto& s : a.rejected)
    r.rejected.push_back(to_wire(s));
  r.exhausted = a.exhausted;
  r.converged = a.stop.stop;
  r.stop_reason = a.stop.reason;
  r.reasoning = a.reasoning;
  return r;
}

measured_run_wire to_wire(const measured_run& r) {
  return {to_wire(r.config), r.iteration_ms, r.tflops_per_gpu, r.peak_memory_mib, r.failure,
          r.line};
}

pool_wire to_wire(const pool_spec& p) {
  pool_wire w;
  w.name = p.name;
  w.kind = p.kind;
  w.capacity = p.capacity;
  w.launch = p.launch;
  w.gpus_per_node = p.gpus_per_node;
  w.partition = p.partition;
  w.via_rest = p.via == slurm_via::slurmrestd;
  w.url = p.url;
  w.token_env = p.token_env;
  w.token_file = p.token_file;
  w.user = p.user;
  w.dcgm = p.dcgm_url;
  w.dcgm_period_s = p.dcgm_period_s;
  w.relay = p.relay;
  w.table = p.table;
  w.env = p.env;
  w.tasks = p.tasks;
  w.account = p.account;
  w.qos = p.qos;
  w.constraint = p.constraint;
  w.gres = p.gres;
  w.exclusive = p.exclusive;
  w.time_limit_minutes = p.time_limit_minutes;
  w.workdir = p.workdir;
  for (const auto& r : p.measured)
    w.measured.push_back(to_wire(r));
  return w;
}

const measured_run_wire* measured_run_of(const pool_wire& pool, const training_config& c) {
  const auto key = to_wire(c);
  for (const auto& r : pool.measured)
    if (r.config == key)
      return &r;
  return nullptr;
}

reasoner_wire to_wire(const reasoner_settings& r) {
  return {r.mode, r.base_url, r.model, r.api_key_env, r.timeout_s, r.max_retries,
          r.structured_output};
}

reasoner_settings from_wire(const reasoner_wire& w) {
  reasoner_settings r;
  r.mode = w.mode;
  r.base_url = w.base_url;
  r.model = w.model;
  r.api_key_env = w.api_key_env;
  r.timeout_s = w.timeout_s;
  r.max_retries = w.max_retries;
  r.structured_output = w.structured_output;
  return r;
}

agent_reasoners reasoners_of(const session_opened& s) {
  agent_reasoners r;
  r.shared = from_wire(s.reasoner);
  for (const auto& o : s.agent_reasoners)
    r.overrides[o.agent] = from_wire(o.settings);
  return r;
}

tuning_context context_of(const session_opened& s) {
  tuning_context ctx;
  ctx.model = from_wire(s.model);
  ctx.cluster = from_wire(s.cluster);
  ctx.world_size = s.world_size;
  if (!parse_precision(s.precision, ctx.prec))
    throw input_error("stored precision '" + s.precision + "' is unknown");
  ctx.initial = from_wire(s.initial);
  ctx.start = s.start;
  ctx.search = s.search;
  ctx.retry_transient = s.retry_transient;
  ctx.stop = {s.stop, s.stop_min_gain, s.stop_confidence};
  for (const auto& p : s.pools)
    for (const auto& r : p.measured)
      ctx.measured.push_back(from_wire(r.config));
  return ctx;
}

const pool_wire* pool_named(const session_opened& s, const std::string& name) {
  for (const auto& p : s.pools)
    if (p.name == name)
      return &p;
  return nullptr;
}

} // namespace paratune::wire
