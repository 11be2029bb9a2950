#include "core/megatron_args.hpp"

#include <functional>
#include <map>

#include "core/input_error.hpp"
#include "core/megatron_rules.hpp"

namespace paratune {

namespace {

void flag(std::vector<std::string>& out, const char* name, int value) {
  out.emplace_back(name);
  out.emplace_back(std::to_string(value));
}

void render_model(const model_spec& m, std::vector<std::string>& out) {
  flag(out, "--num-layers", m.layers);
  flag(out, "--hidden-size", m.hidden);
  flag(out, "--ffn-hidden-size", m.ffn);
  flag(out, "--num-attention-heads", m.heads);
  if (m.kv_heads != m.heads) {
    out.emplace_back("--group-query-attention");
    flag(out, "--num-query-groups", m.kv_heads);
  }
  if (m.head_dim > 0)
    flag(out, "--kv-channels", m.head_dim);
  flag(out, "--vocab-size", m.vocab);
  if (m.swiglu)
    out.emplace_back("--swiglu");
  out.emplace_back("--normalization");
  out.emplace_back(m.rmsnorm ? "RMSNorm" : "LayerNorm");
  if (!m.tied_embeddings)
    out.emplace_back("--untie-embeddings-and-output-weights");
  if (m.is_moe()) {
    flag(out, "--num-experts", m.experts);
    flag(out, "--moe-router-topk", m.topk);
    flag(out, "--moe-ffn-hidden-size", m.moe_ffn);
  }
}

void render_parallelism(const megatron_launch& l, std::vector<std::string>& out) {
  const auto& c = l.config;
  flag(out, "--tensor-model-parallel-size", c.tp);
  flag(out, "--pipeline-model-parallel-size", c.pp);
  flag(out, "--context-parallel-size", c.cp);
  if (c.ep > 1)
    flag(out, "--expert-model-parallel-size", c.ep);
  if (c.vpp > 1 && c.pp > 0)
    flag(out, "--num-layers-per-virtual-pipeline-stage",
         pipeline_split_layers(l.model, c) / c.pp / c.vpp);
  if (c.first_pp_layers > 0)
    flag(out, "--decoder-first-pipeline-num-layers", c.first_pp_layers);
  if (c.last_pp_layers > 0)
    flag(out, "--decoder-last-pipeline-num-layers", c.last_pp_layers);
  if (c.pp_account_embedding)
    out.emplace_back("--account-for-embedding-in-pipeline-split");
  if (c.pp_account_loss)
    out.emplace_back("--account-for-loss-in-pipeline-split");
  if (c.sp)
    out.emplace_back("--sequence-parallel");
}

void render_training(const megatron_launch& l, std::vector<std::string>& out) {
  const auto& c = l.config;
  flag(out, "--micro-batch-size", c.mbs);
  flag(out, "--global-batch-size", c.gbs);
  flag(out, "--seq-length", c.seq);
  flag(out, "--max-position-embeddings", c.seq);
  if (c.recompute != recompute_mode::none) {
    out.emplace_back("--recompute-granularity");
    out.emplace_back(to_string(c.recompute));
  }
  if (c.recompute == recompute_mode::full) {
    out.emplace_back("--recompute-method");
    out.emplace_back(c.recompute_block ? "block" : "uniform");
    flag(out, "--recompute-num-layers",
         c.recompute_layers > 0 ? c.recompute_layers : 1);
  }
  if (c.dist_opt)
    out.emplace_back("--use-distributed-optimizer");
  if (c.overlap_grad)
    out.emplace_back("--overlap-grad-reduce");
  if (c.overlap_param)
    out.emplace_back("--overlap-param-gather");
  if (c.fused_ce)
    out.emplace_back("--cross-entropy-loss-fusion");
  if (c.grad_reduce_bf16)
    out.emplace_back("--grad-reduce-in-bf16");
  switch (l.prec) {
    case precision::bf16: out.emplace_back("--bf16"); break;
    case precision::fp16: out.emplace_back("--fp16"); break;
    case precision::fp8:
      out.emplace_back("--bf16");
      out.emplace_back("--fp8-format");
      out.emplace_back("hybrid");
      break;
  }
  flag(out, "--train-iters", l.train_iters);
  flag(out, "--log-interval", l.log_interval);
  out.emplace_back("--log-throughput");
}

int to_int(const std::string& name, const std::string& v) {
  try {
    size_t used = 0;
    int x = std::stoi(v, &used);
    if (used == v.size())
      return x;
  } catch (const std::exception&) {
  }
  throw input_error("argument " + name + ": expected an integer, got '" + v + "'");
}

} // namespace

std::vector<std::string> render_megatron_args(const megatron_launch& launch) {
  std::vector<std::string> out;
  render_model(launch.model, out);
  render_parallelism(launch, out);
  render_training(launch, out);
  return out;
}

megatron_launch parse_megatron_args(const std::vector<std::string>& args,
                                    std::vector<std::string>* unknown) {
  megatron_launch l;
  auto& m = l.model;
  auto& c = l.config;
  m.kv_heads = 0;
  m.rmsnorm = false;        // Megatron's default normalization is LayerNorm
  m.tied_embeddings = true; // and embeddings are tied unless untied
  int layers_per_virtual = 0;
  int virtual_stages = 0;
  using int_setter = std::function<void(int)>;
  const std::map<std::string, int_setter> ints = {
    {"--num-layers", [&](int v) { m.layers = v; }},
    {"--hidden-size", [&](int v) { m.hidden = v; }},
    {"--ffn-hidden-size", [&](int v) { m.ffn = v; }},
    {"--num-attention-heads", [&](int v) { m.heads = v; }},
    {"--num-query-groups", [&](int v) { m.kv_heads = v; }},
    {"--kv-channels", [&](int v) { m.head_dim = v; }},
    {"--vocab-size", [&](int v) { m.vocab = v; }},
    {"--num-experts", [&](int v) { m.experts = v; }},
    {"--moe-router-topk", [&](int v) { m.topk = v; }},
    {"--moe-ffn-hidden-size", [&](int v) { m.moe_ffn = v; }},
    {"--tensor-model-parallel-size", [&](int v) { c.tp = v; }},
    {"--pipeline-model-parallel-size", [&](int v) { c.pp = v; }},
    {"--context-parallel-size", [&](int v) { c.cp = v; }},
    {"--expert-model-parallel-size", [&](int v) { c.ep = v; }},
    {"--num-layers-per-virtual-pipeline-stage", [&](int v) { layers_per_virtual = v; }},
    {"--num-virtual-stages-per-pipeline-rank", [&](int v) { virtual_stages = v; }},
    {"--decoder-first-pipeline-num-layers", [&](int v) { c.first_pp_layers = v; }},
    {"--decoder-last-pipeline-num-layers", [&](int v) { c.last_pp_layers = v; }},
    {"--micro-batch-size", [&](int v) { c.mbs = v; }},
    {"--global-batch-size", [&](int v) { c.gbs = v; }},
    {"--seq-length", [&](int v) { c.seq = v; }},
    {"--max-position-embeddings", [&](int) {}},
    {"--recompute-num-layers", [&](int v) { c.recompute_layers = v; }},
    {"--train-iters", [&](int v) { l.train_iters = v; }},
    {"--log-interval", [&](int v) { l.log_interval = v; }},
  };
  const std::map<std::string, std::function<void()>> switches = {
    {"--group-query-attention", [] {}},
    {"--swiglu", [&] { m.swiglu = true; }},
    {"--untie-embeddings-and-output-weights", [&] { m.tied_embeddings = false; }},
    {"--sequence-parallel", [&] { c.sp = true; }},
    {"--use-distributed-optimizer", [&] { c.dist_opt = true; }},
    {"--overlap-grad-reduce", [&] { c.overlap_grad = true; }},
    {"--overlap-param-gather", [&] { c.overlap_param = true; }},
    {"--cross-entropy-loss-fusion", [&] { c.fused_ce = true; }},
    {"--account-for-embedding-in-pipeline-split", [&] { c.pp_account_embedding = true; }},
    {"--account-for-loss-in-pipeline-split", [&] { c.pp_account_loss = true; }},
    {"--grad-reduce-in-bf16", [&] { c.grad_reduce_bf16 = true; }},
    {"--bf16", [&] { if (l.prec != precision::fp8) l.prec = precision::bf16; }},
    {"--fp16", [&] { l.prec = precision::fp16; }},
    {"--log-throughput", [] {}},
  };
  bool block = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size())
        throw input_error("argument " + a + ": expected a value");
      return args[++i];
    };
    if (auto it = ints.find(a); it != ints.end()) {
      it->second(to_int(a, value()));
    } else if (auto sw = switches.find(a); sw != switches.end()) {
      sw->second();
    } else if (a == "--recompute-granularity") {
      const auto& v = value();
      if (!parse_recompute(v, c.recompute))
        throw input_error("argument --recompute-granularity: invalid choice '"
                          + v + "' (choose from 'full', 'selective')");
    } else if (a == "--recompute-method") {
      const auto& v = value();
      if (v != "uniform" && v != "block")
        throw input_error("argument --recompute-method: invalid choice '" + v
                          + "' (choose from 'uniform', 'block')");
      block = v == "block";
    } else if (a == "--normalization") {
      m.rmsnorm = value() == "RMSNorm";
    } else if (a == "--fp8-format") {
      value();
      l.prec = precision::fp8;
    } else if (unknown) {
      unknown->push_back(a);
    }
  }
  c.recompute_block = block;
  if (m.kv_heads == 0)
    m.kv_heads = m.heads;
  if (m.ffn == 0)
    m.ffn = 4 * m.hidden;
  if (c.recompute == recompute_mode::full && !block && c.recompute_layers == 1)
    c.recompute_layers = 0; // uniform with 1 layer per chunk is the default
  // Megatron counts accounted embedding/loss layers in the virtual split too.
  if (layers_per_virtual > 0 && c.pp > 0)
    c.vpp = pipeline_split_layers(m, c) / c.pp / layers_per_virtual;
  if (virtual_stages > 0)
    c.vpp = virtual_stages;
  return l;
}

std::string join_args(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) {
    if (!out.empty())
      out += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t'\"$\\") == std::string::npos;
    out += plain ? a : "'" + a + "'";
  }
  return out;
}

} // namespace paratune
