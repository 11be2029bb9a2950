#include "adapters/config/catalog.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

struct catalog_test : ::testing::Test {
  void SetUp() override {
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  }
};

TEST_F(catalog_test, loads_every_catalog_model_with_published_dimensions) {
  auto names = model_names();
  for (const char* n : {"llama2-7b", "llama3-8b", "qwen2.5-7b", "gpt3-7b", "llama2-0.5b",
                        "llama3-0.5b", "qwen2.5-0.5b", "qwen3-moe-a0.6b"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const auto& n : names)
    EXPECT_NO_THROW(load_model(n)) << n;
  auto m = load_model("llama3-8b");
  EXPECT_EQ(m.layers, 32);
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.ffn, 14336);
  EXPECT_EQ(m.vocab, 128256);
  EXPECT_TRUE(m.swiglu);
  EXPECT_NEAR(m.parameters() / 1e9, 8.03, 0.01);
  EXPECT_NEAR(load_model("llama2-7b").parameters() / 1e9, 6.74, 0.01);
  EXPECT_NEAR(load_model("qwen2.5-7b").parameters() / 1e9, 7.62, 0.01);
  EXPECT_EQ(find_model("Llama3", "8B").name, "llama3-8b");
  auto moe = load_model("qwen3-moe-a0.6b");
  EXPECT_TRUE(moe.is_moe());
  EXPECT_LT(moe.active_parameters(), moe.parameters());
}

TEST_F(catalog_test, loads_clusters) {
  auto c = load_cluster("dgx-a100-80g");
  EXPECT_EQ(c.devices_per_node, 8);
  EXPECT_DOUBLE_EQ(c.device.peak_tflops_16, 312);
  EXPECT_DOUBLE_EQ(c.memory_mib(), 81920);
  EXPECT_EQ(c.scale_out.name, "IB-HDR");
  EXPECT_DOUBLE_EQ(load_cluster("dgx-h100").device.peak_tflops_16, 989);
}

TEST_F(catalog_test, unknown_names_and_bad_fields_are_named) {
  try {
    load_model("llama9-1t");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown model 'llama9-1t'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("llama3-8b"), std::string::npos);
  }
  auto dir = test::make_temp_dir("catalog");
  {
    std::ofstream(dir + "/bad.yaml") << "name: bad\nlayers: many\nhidden: 10\nheads: 2\nvocab: 5\n";
  }
  try {
    load_model(dir + "/bad.yaml");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("field 'layers': expected an integer in 1..16384, got 'many'"), std::string::npos);
  }
  {
    std::ofstream(dir + "/nohidden.yaml") << "name: x\nlayers: 2\nheads: 2\nvocab: 5\n";
  }
  EXPECT_THROW(load_model(dir + "/nohidden.yaml"), input_error);
  std::filesystem::remove_all(dir);
}

TEST_F(catalog_test, reads_the_architecture_keys_and_defaults_them_by_style) {
  auto dir = test::make_temp_dir("catalog-architecture");
  const std::string sizes = "layers: 2\nhidden: 64\nheads: 4\nvocab: 100\n";
  {
    std::ofstream(dir + "/gated.yaml") << "name: gated\n" << sizes << "swiglu: true\n";
    std::ofstream(dir + "/plain.yaml") << "name: plain\n" << sizes;
    std::ofstream(dir + "/qwen.yaml")
      << "name: qwen\n" << sizes << "swiglu: true\nrotary_base: 1000000\nbias_linear: false\n"
      << "qkv_bias: true\nqk_layernorm: on\nnorm_epsilon: 1e-6\nrope_scaling_factor: 8\n";
    std::ofstream(dir + "/word.yaml") << "name: w\n" << sizes << "position_embedding: alibi\n";
    std::ofstream(dir + "/base.yaml")
      << "name: b\n" << sizes << "position_embedding: learned_absolute\nrotary_base: 500000\n";
    std::ofstream(dir + "/shared.yaml") << "name: s\n" << sizes << "shared_expert_ffn: 128\n";
  }
  // A file that names neither keeps what paratune assumed before: gated is
  // Llama-style (rope, no biases), ungated GPT-style.
  const auto gated = load_model(dir + "/gated.yaml");
  EXPECT_EQ(gated.position, position_embedding::rope);
  EXPECT_FALSE(gated.bias_linear);
  EXPECT_EQ(gated.rotary_base, 10000);
  EXPECT_DOUBLE_EQ(gated.norm_epsilon, 1e-5);
  const auto plain = load_model(dir + "/plain.yaml");
  EXPECT_EQ(plain.position, position_embedding::learned_absolute);
  EXPECT_TRUE(plain.bias_linear);
  const auto qwen = load_model(dir + "/qwen.yaml");
  EXPECT_EQ(qwen.rotary_base, 1000000);
  EXPECT_FALSE(qwen.bias_linear);
  EXPECT_TRUE(qwen.qkv_bias);
  EXPECT_TRUE(qwen.has_qkv_bias());
  EXPECT_TRUE(qwen.qk_layernorm);
  EXPECT_DOUBLE_EQ(qwen.norm_epsilon, 1e-6);
  EXPECT_DOUBLE_EQ(qwen.rope_scaling_factor, 8);
  auto refusal = [&](const char* file) {
    try {
      load_model(dir + "/" + file);
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  EXPECT_NE(refusal("word.yaml").find("field 'position_embedding': expected learned_absolute, "
                                      "rope or none, got 'alibi'"),
            std::string::npos);
  EXPECT_NE(refusal("base.yaml").find("field 'rotary_base' needs position_embedding: rope"),
            std::string::npos);
  EXPECT_NE(refusal("shared.yaml").find("shared_expert_ffn 128: needs experts > 0"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_F(catalog_test, parses_inline_dimensions) {
  auto m = parse_inline_model("layers=96,hidden=12288,heads=96,vocab=51200,ffn=49152");
  EXPECT_EQ(m.layers, 96);
  EXPECT_EQ(m.kv_heads, 96);
  EXPECT_FALSE(m.swiglu);
  EXPECT_NEAR(m.parameters() / 1e9, 174.6, 0.5);
  EXPECT_THROW(parse_inline_model("layers=2,hidden=8"), input_error);
  EXPECT_THROW(parse_inline_model("layers=2,hidden=8,heads=2,vocab=5,bogus=1"), input_error);
}

} // namespace
} // namespace paratune
