// Every catalog model renders the Megatron-LM arguments of the model it
// names: the published config's position embedding, biases, norm, vocabulary,
// heads, query groups and experts (each YAML's comment names its source).

#include <algorithm>
#include <cctype>

#include <gtest/gtest.h>

#include "adapters/config/catalog.hpp"
#include "core/megatron_args.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

/// What the published config says, as the Megatron-LM flags that carry it.
/// An empty text means the flag is not rendered.
struct published_model {
  const char* name = "";
  const char* position = "";      ///< --position-embedding-type
  const char* rotary_base = "";   ///< --rotary-base
  const char* rope_scaling = "";  ///< --rope-scaling-factor (with --use-rope-scaling)
  bool biases = false;            ///< no --disable-bias-linear
  bool qkv_bias = false;          ///< --add-qkv-bias
  bool qk_layernorm = false;      ///< --qk-layernorm
  const char* norm = "";          ///< --normalization
  const char* epsilon = "";       ///< --norm-epsilon
  const char* vocab = "";         ///< --vocab-size (Megatron pads it itself)
  const char* heads = "";         ///< --num-attention-heads
  const char* groups = "";        ///< --num-query-groups (with --group-query-attention)
  const char* kv_channels = "";   ///< --kv-channels
  const char* experts = "";       ///< --num-experts
  const char* topk = "";          ///< --moe-router-topk
  const char* expert_ffn = "";    ///< --moe-ffn-hidden-size
  bool untied = false;            ///< --untie-embeddings-and-output-weights
  bool swiglu = false;            ///< --swiglu
};

void PrintTo(const published_model& p, std::ostream* os) { *os << p.name; }

// Sources: openai-community/gpt2-medium and GPT-3 (Brown et al. 2020) for
// the GPT shapes; meta-llama/Llama-2-7b-hf, Meta-Llama-3-8B, Llama-3.1-405B,
// Qwen/Qwen2.5-0.5B, Qwen2.5-7B and Qwen3-30B-A3B config.json for the rest;
// the 0.5B reference models take their family's architecture.
const published_model catalog_models[] = {
  {.name = "gpt-vtrain-h1024-l24", .position = "learned_absolute", .biases = true,
   .norm = "LayerNorm", .epsilon = "1e-05", .vocab = "51200", .heads = "16"},
  {.name = "gpt3-7b", .position = "learned_absolute", .biases = true, .norm = "LayerNorm",
   .epsilon = "1e-05", .vocab = "50257", .heads = "32"},
  {.name = "llama2-0.5b", .position = "rope", .rotary_base = "10000", .norm = "RMSNorm",
   .epsilon = "1e-05", .vocab = "32000", .heads = "14", .swiglu = true},
  {.name = "llama2-7b", .position = "rope", .rotary_base = "10000", .norm = "RMSNorm",
   .epsilon = "1e-05", .vocab = "32000", .heads = "32", .untied = true, .swiglu = true},
  {.name = "llama3-0.5b", .position = "rope", .rotary_base = "500000", .norm = "RMSNorm",
   .epsilon = "1e-05", .vocab = "128256", .heads = "14", .groups = "2", .swiglu = true},
  {.name = "llama3-8b", .position = "rope", .rotary_base = "500000", .norm = "RMSNorm",
   .epsilon = "1e-05", .vocab = "128256", .heads = "32", .groups = "8", .untied = true,
   .swiglu = true},
  {.name = "llama3.1-405b", .position = "rope", .rotary_base = "500000", .rope_scaling = "8",
   .norm = "RMSNorm", .epsilon = "1e-05", .vocab = "128256", .heads = "128", .groups = "8",
   .untied = true, .swiglu = true},
  {.name = "tinyllama-1.1b", .position = "rope", .rotary_base = "10000", .norm = "RMSNorm",
   .epsilon = "1e-05", .vocab = "32000", .heads = "32", .groups = "4", .untied = true,
   .swiglu = true},
  {.name = "qwen2.5-0.5b", .position = "rope", .rotary_base = "1000000", .qkv_bias = true,
   .norm = "RMSNorm", .epsilon = "1e-06", .vocab = "151936", .heads = "14", .groups = "2",
   .swiglu = true},
  {.name = "qwen2.5-7b", .position = "rope", .rotary_base = "1000000", .qkv_bias = true,
   .norm = "RMSNorm", .epsilon = "1e-06", .vocab = "152064", .heads = "28", .groups = "4",
   .untied = true, .swiglu = true},
  {.name = "qwen3-moe-a0.6b", .position = "rope", .rotary_base = "1000000",
   .qk_layernorm = true, .norm = "RMSNorm", .epsilon = "1e-06", .vocab = "151936",
   .heads = "16", .groups = "8", .kv_channels = "64", .experts = "32", .topk = "8",
   .expert_ffn = "1024", .swiglu = true},
};

class catalog_published_config : public ::testing::TestWithParam<published_model> {
protected:
  void SetUp() override {
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  }
};

std::vector<std::string> rendered(const model_spec& m) {
  megatron_launch l;
  l.model = m;
  l.config = parse_config("tp=1,pp=1,mbs=1,gbs=8,seq=4096");
  return render_megatron_args(l);
}

bool has(const std::vector<std::string>& args, const std::string& flag) {
  return std::find(args.begin(), args.end(), flag) != args.end();
}

// The value after `flag`, or "" when the flag is not rendered.
std::string value_of(const std::vector<std::string>& args, const std::string& flag) {
  const auto it = std::find(args.begin(), args.end(), flag);
  return it == args.end() || it + 1 == args.end() ? "" : *(it + 1);
}

TEST_P(catalog_published_config, renders_the_published_architecture) {
  const auto& p = GetParam();
  const auto m = load_model(p.name);
  const auto args = rendered(m);
  EXPECT_EQ(value_of(args, "--position-embedding-type"), p.position);
  EXPECT_EQ(value_of(args, "--rotary-base"), p.rotary_base);
  EXPECT_EQ(value_of(args, "--rope-scaling-factor"), p.rope_scaling);
  EXPECT_EQ(has(args, "--use-rope-scaling"), *p.rope_scaling != '\0');
  EXPECT_EQ(has(args, "--disable-bias-linear"), !p.biases);
  EXPECT_EQ(has(args, "--add-qkv-bias"), p.qkv_bias);
  EXPECT_EQ(has(args, "--qk-layernorm"), p.qk_layernorm);
  EXPECT_EQ(value_of(args, "--normalization"), p.norm);
  EXPECT_EQ(value_of(args, "--norm-epsilon"), p.epsilon);
  EXPECT_EQ(value_of(args, "--vocab-size"), p.vocab);
  EXPECT_EQ(value_of(args, "--num-attention-heads"), p.heads);
  EXPECT_EQ(value_of(args, "--num-query-groups"), p.groups);
  EXPECT_EQ(has(args, "--group-query-attention"), *p.groups != '\0');
  EXPECT_EQ(value_of(args, "--kv-channels"), p.kv_channels);
  EXPECT_EQ(value_of(args, "--num-experts"), p.experts);
  EXPECT_EQ(value_of(args, "--moe-router-topk"), p.topk);
  EXPECT_EQ(value_of(args, "--moe-ffn-hidden-size"), p.expert_ffn);
  // No catalog model has a shared expert (Qwen3-MoE dropped Qwen2-MoE's).
  EXPECT_FALSE(has(args, "--moe-shared-expert-intermediate-size"));
  EXPECT_EQ(has(args, "--untie-embeddings-and-output-weights"), p.untied);
  EXPECT_EQ(has(args, "--swiglu"), p.swiglu);
}

TEST_P(catalog_published_config, reads_back_from_its_arguments) {
  const auto m = load_model(GetParam().name);
  const auto back = parse_megatron_args(rendered(m)).model;
  EXPECT_EQ(back.position, m.position);
  EXPECT_EQ(back.rotary_base, m.rotary_base);
  EXPECT_DOUBLE_EQ(back.rope_scaling_factor, m.rope_scaling_factor);
  EXPECT_EQ(back.bias_linear, m.bias_linear);
  EXPECT_EQ(back.qkv_bias, m.qkv_bias);
  EXPECT_EQ(back.has_qkv_bias(), m.has_qkv_bias());
  EXPECT_EQ(back.qk_layernorm, m.qk_layernorm);
  EXPECT_DOUBLE_EQ(back.norm_epsilon, m.norm_epsilon);
  EXPECT_EQ(back.rmsnorm, m.rmsnorm);
  EXPECT_EQ(back.vocab, m.vocab);
  EXPECT_EQ(back.kv_heads, m.kv_heads);
  EXPECT_EQ(back.experts, m.experts);
  EXPECT_EQ(back.topk, m.topk);
  EXPECT_EQ(back.moe_ffn, m.moe_ffn);
  EXPECT_EQ(back.shared_expert_ffn, m.shared_expert_ffn);
  EXPECT_EQ(back.tied_embeddings, m.tied_embeddings);
}

INSTANTIATE_TEST_SUITE_P(every_model, catalog_published_config,
                         ::testing::ValuesIn(catalog_models),
                         [](const ::testing::TestParamInfo<published_model>& info) {
                           std::string name = info.param.name;
                           std::replace_if(name.begin(), name.end(),
                                           [](char ch) { return !std::isalnum(ch); }, '_');
                           return name;
                         });

TEST(catalog_published_config_list, covers_every_catalog_model) {
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  std::vector<std::string> listed;
  for (const auto& p : catalog_models)
    listed.emplace_back(p.name);
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, model_names()); // a new catalog model gets a row above
}

} // namespace
} // namespace paratune
