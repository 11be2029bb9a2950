#include "core/megatron_args.hpp"

#include <charconv>
#include <functional>
#include <map>

#include "core/input_error.hpp"
#include "core/megatron_rules.hpp"
#include "core/model_dimensions.hpp"
#include "core/value_range.hpp"

namespace paratune {

namespace {

void flag(std::vector<std::string>& out, const char* name, int value) {
  out.emplace_back(name);
  out.emplace_back(std::to_string(value));
}

// The shortest text that reads back as the same double ("1e-06", "8"), as
// Python's float() reads it.
void flag(std::vector<std::string>& out, const char* name, double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  out.emplace_back(name);
  out.emplace_back(text, end);
}

// Position embedding, biases and norms: what Megatron-LM would otherwise
// build with its defaults (learned positions, biases everywhere, LayerNorm
// at 1e-5), which for a Llama or Qwen is another model. The position
// embedding and epsilon are given even when they are the default, so the
// command line says which model it is.
void render_architecture(const model_spec& m, std::vector<std::string>& out) {
  out.emplace_back("--position-embedding-type");
  out.emplace_back(to_string(m.position));
  if (m.position == position_embedding::rope) {
    flag(out, "--rotary-base", m.rotary_base);
    if (m.rope_scaling_factor > 0) {
      out.emplace_back("--use-rope-scaling");
      flag(out, "--rope-scaling-factor", m.rope_scaling_factor);
    }
  }
  if (!m.bias_linear)
    out.emplace_back("--disable-bias-linear");
  // Megatron-LM builds the QKV bias when either flag asks for it; with
  // biases everywhere the flag would say nothing.
  if (m.qkv_bias && !m.bias_linear)
    out.emplace_back("--add-qkv-bias");
  if (m.qk_layernorm)
    out.emplace_back("--qk-layernorm");
  flag(out, "--norm-epsilon", m.norm_epsilon);
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
  render_architecture(m, out);
  if (!m.tied_embeddings)
    out.emplace_back("--untie-embeddings-and-output-weights");
  if (m.is_moe()) {
    flag(out, "--num-experts", m.experts);
    flag(out, "--moe-router-topk", m.topk);
    flag(out, "--moe-ffn-hidden-size", m.moe_ffn);
    if (m.shared_expert_ffn > 0)
      flag(out, "--moe-shared-expert-intermediate-size", m.shared_expert_ffn);
  }
}

// The flags that keep Megatron-LM's start-up checks satisfied for the model
// (rendered_flags says which and why); the biases are the model's own.
void render_rule_flags(const megatron_flags& f, std::vector<std::string>& out) {
  if (f.router_pre_softmax)
    out.emplace_back("--moe-router-pre-softmax");
}

void render_parallelism(const megatron_launch& l, std::vector<std::string>& out) {
  const auto& c = l.config;
  flag(out, "--tensor-model-parallel-size", c.tp);
  flag(out, "--pipeline-model-parallel-size", c.pp);
  flag(out, "--context-parallel-size", c.cp);
  if (c.ep > 1)
    flag(out, "--expert-model-parallel-size", c.ep);
  const auto f = rendered_flags(l.model, c);
  if (f.layers_per_virtual_stage > 0)
    flag(out, "--num-layers-per-virtual-pipeline-stage", f.layers_per_virtual_stage);
  if (f.virtual_stages > 0)
    flag(out, "--num-virtual-stages-per-pipeline-rank", f.virtual_stages);
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

// The range of a model flag is its dimension's, of a parallelism or batch
// flag its configuration key's: one range per value, whichever way it comes.
value_range dimension_range(const char* name) { return find_model_dimension(name)->range; }
value_range key_range(const char* key) { return find_config_key(key)->range; }

} // namespace

std::vector<std::string> render_megatron_args(const megatron_launch& launch) {
  std::vector<std::string> out;
  render_model(launch.model, out);
  render_rule_flags(rendered_flags(launch.model, launch.config), out);
  render_parallelism(launch, out);
  render_training(launch, out);
  return out;
}

namespace {

// The values an option Megatron-LM defines but paratune does not model takes
// after it, as argparse would take them: skipped. Returns the index of the
// last word taken; a value given after '=' is the next word.
size_t skip_option_values(const megatron_option& o, const std::vector<std::string>& args,
                          size_t i, bool value_attached) {
  const auto is_word = [&](size_t k) { return k < args.size() && args[k].rfind("-", 0) != 0; };
  switch (o.arity) {
    case option_arity::none:
      if (value_attached)
        throw input_error("argument " + o.name + ": ignored explicit argument");
      return i;
    case option_arity::exactly:
      if (value_attached && o.count == 1)
        return i + 1;
      for (int k = 0; k < o.count; ++k) {
        if (i + 1 >= args.size())
          throw input_error("argument " + o.name + ": expected "
                            + (o.count == 1 ? std::string("one argument")
                                            : std::to_string(o.count) + " arguments"));
        ++i;
      }
      return i;
    case option_arity::optional:
      return value_attached || is_word(i + 1) ? i + 1 : i;
    case option_arity::any:
    case option_arity::at_least_one: {
      if (value_attached)
        return i + 1;
      size_t k = i;
      while (is_word(k + 1))
        ++k;
      if (k == i && o.arity == option_arity::at_least_one)
        throw input_error("argument " + o.name + ": expected at least one argument");
      return k;
    }
  }
  return i;
}

} // namespace

megatron_launch parse_megatron_args(const std::vector<std::string>& raw_args,
                                    std::vector<std::string>* unknown,
                                    const megatron_option_list* options) {
  // "--flag=value" is argparse's other spelling of "--flag value".
  std::vector<std::string> args;
  std::vector<bool> attached; // the word before this one carried it after '='
  for (const auto& a : raw_args) {
    const auto eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      args.push_back(a.substr(0, eq));
      attached.push_back(false);
      args.push_back(a.substr(eq + 1));
      attached.push_back(true);
    } else {
      args.push_back(a);
      attached.push_back(false);
    }
  }
  const auto has_attached = [&](size_t i) { return i + 1 < args.size() && attached[i + 1]; };
  megatron_launch l;
  auto& m = l.model;
  auto& c = l.config;
  auto& f = l.flags;
  m.kv_heads = 0;
  m.rmsnorm = false;        // Megatron's default normalization is LayerNorm
  m.tied_embeddings = true; // and embeddings are tied unless untied
  bool rope_scaling = false;
  double rope_factor = 8.0; // Megatron-LM's default --rope-scaling-factor
  bool recompute_activations = false;
  using int_setter = std::function<void(int)>;
  struct int_flag {
    value_range range;
    int_setter set;
  };
  auto dim = [&](const char* name) {
    const auto* d = find_model_dimension(name);
    return int_flag{d->range, [&m, field = d->field](int v) { m.*field = v; }};
  };
  auto key = [&](const char* name) {
    const auto* k = find_config_key(name);
    return int_flag{k->range, [&c, field = k->int_field](int v) { c.*field = v; }};
  };
  const std::map<std::string, int_flag> ints = {
    {"--num-layers", dim("layers")},
    {"--hidden-size", dim("hidden")},
    {"--ffn-hidden-size", dim("ffn")},
    {"--num-attention-heads", dim("heads")},
    {"--num-query-groups", dim("kv_heads")},
    {"--kv-channels", dim("head_dim")},
    {"--vocab-size", dim("vocab")},
    {"--num-experts", dim("experts")},
    {"--moe-router-topk", {find_model_dimension("topk")->range, [&](int v) {
       m.topk = v;
       f.router_topk = v;
     }}},
    {"--moe-ffn-hidden-size", dim("moe_ffn")},
    {"--moe-shared-expert-intermediate-size", dim("shared_expert_ffn")},
    {"--rotary-base", dim("rotary_base")},
    {"--tensor-model-parallel-size", key("tp")},
    {"--pipeline-model-parallel-size", key("pp")},
    {"--context-parallel-size", key("cp")},
    {"--expert-model-parallel-size", key("ep")},
    {"--expert-tensor-parallel-size", {key_range("tp"), [&](int v) { f.expert_tp = v; }}},
    {"--num-layers-per-virtual-pipeline-stage",
     {dimension_range("layers"), [&](int v) { f.layers_per_virtual_stage = v; }}},
    {"--num-virtual-stages-per-pipeline-rank",
     {key_range("vpp"), [&](int v) { f.virtual_stages = v; }}},
    {"--decoder-first-pipeline-num-layers", key("first_pp_layers")},
    {"--decoder-last-pipeline-num-layers", key("last_pp_layers")},
    {"--micro-batch-size", key("mbs")},
    {"--global-batch-size", key("gbs")},
    {"--seq-length", key("seq")},
    {"--max-position-embeddings",
     {key_range("seq"), [&](int v) { f.max_position_embeddings = v; }}},
    {"--recompute-num-layers", {key_range("recompute_layers"), [&](int v) {
       c.recompute_layers = v;
       f.recompute_layers_given = true;
     }}},
    {"--train-iters", {{1, 100000000}, [&](int v) { l.train_iters = v; }}},
    {"--log-interval", {{1, 100000000}, [&](int v) { l.log_interval = v; }}},
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
    {"--bf16", [&] { f.bf16 = true; }},
    {"--fp16", [&] { f.fp16 = true; }},
    {"--log-throughput", [] {}},
    {"--no-overlap-p2p-communication", [&] { f.overlap_p2p = false; }},
    {"--disable-bias-linear", [&] {
       f.bias_linear = false;
       m.bias_linear = false;
     }},
    {"--add-qkv-bias", [&] { m.qkv_bias = true; }},
    {"--qk-layernorm", [&] { m.qk_layernorm = true; }},
    {"--use-rope-scaling", [&] { rope_scaling = true; }},
    // Megatron-LM's older spelling of --position-embedding-type rope.
    {"--use-rotary-position-embeddings", [&] { m.position = position_embedding::rope; }},
    {"--moe-router-pre-softmax", [&] { f.router_pre_softmax = true; }},
    {"--use-torch-fsdp2", [&] { f.torch_fsdp2 = true; }},
    {"--use-megatron-fsdp", [&] { f.megatron_fsdp = true; }},
    {"--overlap-moe-expert-parallel-comm", [&] { f.overlap_moe_ep_comm = true; }},
    {"--recompute-activations", [&] { recompute_activations = true; }},
  };
  bool block = false;
  bool fp8 = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size())
        throw input_error("argument " + a + ": expected a value");
      return args[++i];
    };
    if (attached[i]) {
      if (unknown) // a value after '=' that no option took
        unknown->push_back(a);
    } else if (auto it = ints.find(a); it != ints.end()) {
      it->second.set(parse_int_field("argument " + a, value(), it->second.range));
    } else if (auto sw = switches.find(a); sw != switches.end()) {
      if (has_attached(i))
        throw input_error("argument " + a + ": ignored explicit argument '" + args[i + 1] + "'");
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
      f.recompute_method_given = true;
    } else if (a == "--normalization") {
      m.rmsnorm = value() == "RMSNorm";
    } else if (a == "--position-embedding-type") {
      const auto& v = value();
      if (!parse_position_embedding(v, m.position, true))
        throw input_error("argument --position-embedding-type: invalid choice '" + v
                          + "' (choose from 'learned_absolute', 'rope', 'mrope', 'relative', "
                            "'none')");
    } else if (a == "--norm-epsilon") {
      m.norm_epsilon = parse_real("argument --norm-epsilon", value(), 0.0, 1.0);
    } else if (a == "--rope-scaling-factor") {
      rope_factor = parse_real("argument --rope-scaling-factor", value(), 0.0, 1e6);
    } else if (a == "--fp8-format") {
      value();
      fp8 = true;
    } else if (a == "--moe-router-score-function") {
      f.router_softmax = value() == "softmax";
    } else if (a == "--cross-entropy-fusion-impl") {
      f.cross_entropy_te = value() == "te";
    } else if (a == "--moe-router-load-balancing-type") {
      // One value is kept as a string, so only a lone "sinkhorn" is sinkhorn.
      std::vector<std::string> types;
      while (i + 1 < args.size() && args[i + 1].rfind("-", 0) != 0)
        types.push_back(args[++i]);
      if (types.empty())
        throw input_error("argument --moe-router-load-balancing-type: expected at least one argument");
      f.router_sinkhorn = types.size() == 1 && types[0] == "sinkhorn";
    } else if (const auto* o = options ? options->find(a) : nullptr) {
      i = skip_option_values(*o, args, i, has_attached(i));
    } else if (unknown) {
      unknown->push_back(a);
    }
  }
  l.prec = f.fp16 ? precision::fp16 : fp8 ? precision::fp8 : precision::bf16;
  // validate_args turns --recompute-activations into selective granularity,
  // whatever --recompute-granularity said (arguments.py:607 at d98e8a64).
  if (recompute_activations)
    c.recompute = recompute_mode::selective;
  c.recompute_block = block;
  if (m.kv_heads == 0)
    m.kv_heads = m.heads;
  if (m.ffn == 0)
    m.ffn = 4 * m.hidden;
  // Megatron's defaults: an expert is as wide as the dense MLP and the
  // router picks 2; a dense model ignores the router's flags.
  if (m.experts > 0 && m.moe_ffn == 0)
    m.moe_ffn = m.ffn;
  if (m.experts > 0 && m.topk == 0)
    m.topk = 2;
  if (m.experts == 0)
    m.topk = 0;
  if (rope_scaling && m.position == position_embedding::rope)
    m.rope_scaling_factor = rope_factor;
  if (c.recompute == recompute_mode::full && !block && c.recompute_layers == 1)
    c.recompute_layers = 0; // uniform with 1 layer per chunk is the default
  // The virtual stages as validate_args derives them: given per rank, or the
  // stage's layers (accounted embedding and loss included) over the layers
  // per virtual stage; a split that does not divide is refused by the rules.
  const int split = pipeline_split_layers(m, c);
  if (f.virtual_stages > 0)
    c.vpp = f.virtual_stages;
  else if (f.layers_per_virtual_stage > 0 && c.pp > 0)
    c.vpp = std::max(1, split / c.pp / f.layers_per_virtual_stage);
  return l;
}

std::vector<rule_violation> check_megatron_launch(const megatron_launch& launch, int world_size) {
  return check_megatron_arguments(launch.model, launch.config, launch.flags, world_size);
}

void check_megatron_model(const megatron_launch& launch) {
  const auto& m = launch.model;
  if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0 || m.vocab <= 0)
    throw input_error("the model is incomplete: --num-layers, --hidden-size, "
                      "--num-attention-heads and --vocab-size are required");
  check_model(m, "", dimension_names::megatron);
}

} // namespace paratune
