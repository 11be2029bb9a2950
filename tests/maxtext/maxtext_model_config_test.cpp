// The MaxText export builds the model it names: its overrides, applied over
// MaxText's base.yml (and the file its model_name names) as MaxText's
// configs/pyconfig.py applies them, give every architecture key of MaxText's
// own model file. The reference values are copies of MaxText's files at
// maxtext_rules_commit (tests/fixtures/maxtext/model_configs/, README there).

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "adapters/config/catalog.hpp"
#include "core/input_error.hpp"
#include "core/tpu/maxtext_args.hpp"
#include "core/tpu/maxtext_architecture.hpp"
#include "core/tpu/maxtext_model_table.hpp"
#include "core/tpu/maxtext_rules.hpp"
#include "core/tpu/maxtext_value.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using config = std::map<std::string, std::string, std::less<>>;

std::string fixture_dir() { return test::source_dir() + "/tests/fixtures/maxtext/model_configs"; }

// A YAML value as MaxText's command line would spell it: scalars as
// written, lists as [a,b].
std::string text_of(const YAML::Node& n) {
  if (!n.IsSequence())
    return n.Scalar();
  std::string out = "[";
  for (size_t i = 0; i < n.size(); ++i)
    out += (i ? "," : "") + text_of(n[i]);
  return out + "]";
}

config read_config(const std::string& file) {
  config out;
  for (const auto& kv : YAML::LoadFile(fixture_dir() + "/" + file))
    out[kv.first.as<std::string>()] = text_of(kv.second);
  return out;
}

config split(const std::vector<std::string>& overrides) {
  config out;
  for (const auto& o : overrides)
    out[o.substr(0, o.find('='))] = o.substr(o.find('=') + 1);
  return out;
}

// Keys of a model file that build nothing of the model: how the weights are
// sharded (merged into base.yml's rules, pyconfig.py:496-512) and which
// tokenizer library reads the data.
const std::set<std::string, std::less<>> not_architecture = {"logical_axis_rules",
                                                             "tokenizer_type"};

// Keys the export may leave at another value than base.yml's where the model
// file does not set them, and why.
bool differs_from_base_by_design(const std::string& key, const std::string& model) {
  // A throughput run trains without dropout, whatever the file says.
  if (key == "enable_dropout")
    return true;
  // Read only with logits_via_embedding (types.py:575-577); Hugging Face's
  // tied models do not normalize the logits.
  if (key == "normalize_embedding_logits")
    return true;
  // Llama 3.1's scaled rope: MaxText picks it from a model_name that starts
  // with llama3.1 (layers/attentions.py:934) or from rope_type llama3.1.
  if (key == "rope_type")
    return model.rfind("llama3.1", 0) == 0;
  return false;
}

// MaxText's merge (configs/pyconfig.py:457-514): base.yml, the model file
// model_name names, the command line. A key both the file and the command
// line set with different values is refused (pyconfig.py:147).
config apply_over_base(const std::vector<std::string>& overrides, std::string& refused) {
  config out = read_config("base.yml");
  const auto cli = split(overrides);
  if (const auto it = cli.find("model_name"); it != cli.end()) {
    const auto file = read_config(it->second + ".yml");
    for (const auto& [k, v] : file) {
      if (const auto c = cli.find(k); c != cli.end() && !same_maxtext_value(c->second, v))
        refused += k + " ";
      out[k] = v;
    }
  }
  for (const auto& [k, v] : cli)
    out[k] = v;
  return out;
}

maxtext_launch launch_of(const model_spec& m) {
  maxtext_launch l;
  l.model = m;
  l.ici = parse_mesh("fsdp=16,model=4");
  l.dcn = parse_mesh("data=1");
  l.chips = 64;
  l.workload.global_batch = 128;
  l.workload.seq_len = 2048;
  return l;
}

class maxtext_model_config : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  }
};

// Every key the model file sets, after MaxText's merge of what the export
// writes, has the file's value; every other key the export writes is
// base.yml's, or differs by design.
void expect_builds(const std::string& name, const std::vector<std::string>& overrides) {
  const auto file = read_config(name + ".yml");
  const auto base = read_config("base.yml");
  std::string refused;
  const auto built = apply_over_base(overrides, refused);
  EXPECT_EQ(refused, "") << "keys the model file sets, written with other values";
  for (const auto& [key, value] : file) {
    if (not_architecture.contains(key))
      continue;
    ASSERT_TRUE(built.contains(key)) << key;
    EXPECT_TRUE(same_maxtext_value(built.at(key), value))
        << key << ": built " << built.at(key) << ", MaxText's " << name << ".yml " << value;
  }
  for (const auto& [key, value] : split(overrides)) {
    if (file.contains(key) || !base.contains(key) || key == "model_name")
      continue;
    if (!same_maxtext_value(value, base.at(key))) {
      EXPECT_TRUE(differs_from_base_by_design(key, name))
          << key << "=" << value << " where base.yml has " << base.at(key);
    }
  }
  EXPECT_TRUE(same_maxtext_value(built.at("enable_dropout"), "false"));
}

TEST_P(maxtext_model_config, the_export_builds_maxtexts_model) {
  const auto m = load_model(GetParam());
  const auto l = launch_of(m);
  const auto overrides = checked_maxtext_args(l);
  // MaxText ships this model: the export names it.
  EXPECT_EQ(split(overrides).at("model_name"), GetParam());
  expect_builds(GetParam(), overrides);
}

// A model MaxText has no file for gets every architecture key: the same
// model, written out, builds MaxText's model too.
TEST_P(maxtext_model_config, every_architecture_key_builds_it_without_the_name) {
  auto m = load_model(GetParam());
  m.name = "my-" + m.name;
  const auto overrides = checked_maxtext_args(launch_of(m));
  EXPECT_FALSE(split(overrides).contains("model_name"));
  expect_builds(GetParam(), overrides);
}

// What paratune-tpu-sim reads from the export is the catalog's model: the
// file model_name names, read back, agrees with every key.
TEST_P(maxtext_model_config, the_simulator_reads_the_catalog_model_back) {
  const auto m = load_model(GetParam());
  const auto l = launch_of(m);
  EXPECT_NO_THROW(read_maxtext_args(render_maxtext_args(l), l));
  EXPECT_TRUE(check_maxtext_overrides(render_maxtext_args(l), target_of(l)).empty());
}

INSTANTIATE_TEST_SUITE_P(shipped_by_maxtext, maxtext_model_config,
                         ::testing::Values("llama2-7b", "llama3-8b", "llama3.1-405b",
                                           "qwen2.5-7b"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace_if(name.begin(), name.end(),
                                           [](char ch) { return !std::isalnum(ch); }, '_');
                           return name;
                         });

// The models above are every catalog model MaxText has a model_name for,
// each has its reference copy, and the export's table has the same files.
TEST(maxtext_model_config_list, covers_every_catalog_model_maxtext_ships) {
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  const auto names = maxtext_model_names();
  std::vector<std::string> shipped;
  for (const auto& n : model_names())
    if (std::find(names.begin(), names.end(), n) != names.end())
      shipped.push_back(n);
  EXPECT_EQ(shipped, (std::vector<std::string>{"llama2-7b", "llama3-8b", "llama3.1-405b",
                                               "qwen2.5-7b"}));
  std::vector<std::string> tabled;
  for (const auto& f : maxtext_model_files()) {
    tabled.emplace_back(f.name);
    EXPECT_EQ(f.file, "configs/models/" + std::string(f.name) + ".yml");
    EXPECT_TRUE(std::filesystem::exists(fixture_dir() + "/" + std::string(f.name) + ".yml"))
        << f.name;
    // The table holds the file's keys with its values, as the copy has them.
    const auto copy = read_config(std::string(f.name) + ".yml");
    EXPECT_EQ(copy.size(), f.settings.size()) << f.name;
    for (const auto& s : f.settings) {
      ASSERT_TRUE(copy.contains(s.key)) << f.name << " " << s.key;
      EXPECT_TRUE(same_maxtext_value(copy.find(s.key)->second, s.value)) << f.name << " " << s.key;
    }
  }
  std::sort(tabled.begin(), tabled.end());
  EXPECT_EQ(tabled, shipped);
}

// The values the issue found wrong, as the export now writes them over
// base.yml without a model_name.
TEST(maxtext_model_config_values, rope_dropout_block_bias_and_epsilon) {
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  auto value = [](const std::string& model, const std::string& key) {
    return split(maxtext_architecture_args(load_model(model))).at(key);
  };
  EXPECT_EQ(value("llama3-8b", "rope_max_timescale"), "500000");
  EXPECT_EQ(value("llama3-8b", "enable_dropout"), "false");
  EXPECT_EQ(value("llama2-7b", "enable_dropout"), "false");
  EXPECT_EQ(value("qwen2.5-7b", "decoder_block"), "qwen2");
  EXPECT_EQ(value("qwen2.5-7b", "attention_bias"), "true");
  EXPECT_EQ(value("qwen2.5-7b", "normalization_layer_epsilon"), "1e-06");
  EXPECT_EQ(value("qwen2.5-7b", "rope_max_timescale"), "1000000");
  EXPECT_EQ(value("llama3.1-405b", "rope_type"), "llama3.1");
  EXPECT_EQ(value("qwen3-moe-a0.6b", "decoder_block"), "qwen3_moe");
  EXPECT_EQ(value("qwen3-moe-a0.6b", "use_qk_norm"), "true");
  EXPECT_EQ(value("qwen2.5-0.5b", "logits_via_embedding"), "true");
  EXPECT_EQ(value("gpt3-7b", "decoder_block"), "gpt3");
  EXPECT_EQ(value("gpt3-7b", "mlp_activations"), "[gelu]");
  EXPECT_EQ(value("gpt3-7b", "trainable_position_size"), "4096");
  // The export of a shipped model: its name, and what its file leaves to
  // base.yml.
  const auto qwen = split(maxtext_model_args(load_model("qwen2.5-7b")));
  EXPECT_EQ(qwen.at("model_name"), "qwen2.5-7b");
  EXPECT_EQ(qwen.at("enable_dropout"), "false");
  EXPECT_FALSE(qwen.contains("base_emb_dim"));
}

// MaxText's Llama 3.1 rope scales by 8 only: a model scaled otherwise is
// predicted (render writes what MaxText would come closest to) but never
// exported or launched.
TEST(maxtext_model_config_values, a_rope_scaling_maxtext_has_not_is_not_written) {
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  auto m = load_model("llama3-8b");
  m.name = "llama3.2-like";
  m.rope_scaling_factor = 32;
  const auto l = launch_of(m);
  EXPECT_EQ(split(render_maxtext_args(l)).at("rope_type"), "llama3.1");
  try {
    checked_maxtext_args(l);
    ADD_FAILURE() << "exported";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "model llama3.2-like: MaxText's rope scaling (rope_type=llama3.1) "
                           "scales by 8, not 32");
  }
}

TEST(maxtext_value, compares_values_as_maxtexts_config_reads_them) {
  EXPECT_TRUE(same_maxtext_value("500_000", "500000"));
  EXPECT_TRUE(same_maxtext_value("1000000.0", "1000000"));
  EXPECT_TRUE(same_maxtext_value("1.e-05", "1e-05"));
  EXPECT_TRUE(same_maxtext_value("1.0e-5", "1e-05"));
  EXPECT_TRUE(same_maxtext_value("\"llama2\"", "llama2"));
  EXPECT_TRUE(same_maxtext_value("[\"silu\", \"linear\"]", "[silu,linear]"));
  EXPECT_TRUE(same_maxtext_value("False", "false"));
  EXPECT_FALSE(same_maxtext_value("10_000", "500000"));
  EXPECT_FALSE(same_maxtext_value("1e-05", "1e-06"));
  EXPECT_FALSE(same_maxtext_value("[silu,linear]", "[gelu]"));
  EXPECT_FALSE(same_maxtext_value("[silu]", "silu"));
  EXPECT_FALSE(same_maxtext_value("true", "1"));
  EXPECT_FALSE(same_maxtext_value("qwen2", "llama2"));
}

} // namespace
} // namespace paratune
