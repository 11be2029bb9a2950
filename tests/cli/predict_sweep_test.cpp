// Every number `predict` takes, driven through the edges of the integers:
// 0, 1, -1, every power of two up to 2^63 and a negative. The only answers
// allowed are a prediction (exit 0) that is physically possible, or a
// refusal (exit 2) that names the field. Before the validation layer, some
// of these crashed with SIGFPE (exit 136) or printed "data parallel 0".

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/model_dimensions.hpp"
#include "core/training_config.hpp"
#include "tests/cli/run_paratune.hpp"

namespace paratune {
namespace {

// 0, 1, -1, 2^1 .. 2^63 (2^63 is one past INT64_MAX), and -12345.
std::vector<std::string> edge_values() {
  std::vector<std::string> out = {"0", "1", "-1", "-12345"};
  for (int k = 1; k <= 63; ++k)
    out.push_back(k == 63 ? "9223372036854775808" : std::to_string(int64_t(1) << k));
  return out;
}

// Llama 3 8B written out, so that any one dimension can be replaced.
const std::map<std::string, std::string> llama3_8b_dims = {
  {"layers", "32"}, {"hidden", "4096"}, {"heads", "32"}, {"kv_heads", "8"},
  {"ffn", "14336"}, {"vocab", "128256"}, {"swiglu", "1"}};

std::string inline_model(const std::string& key, const std::string& value) {
  auto dims = llama3_8b_dims;
  dims[key] = value;
  std::string out;
  for (const auto& [k, v] : dims)
    out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

struct sweep_case {
  std::string key;
  bool model_dimension;  ///< an inline --model dimension, else a --config key
};

void PrintTo(const sweep_case& c, std::ostream* os) { *os << c.key; }

std::string case_name(const ::testing::TestParamInfo<sweep_case>& info) {
  return (info.param.model_dimension ? "model_" : "config_") + info.param.key;
}

std::vector<sweep_case> all_cases() {
  std::vector<sweep_case> out;
  for (const auto& k : config_key_table())
    if (k.name != "recompute" && k.name != "recompute_method") // their values are words
      out.push_back({k.name, false});
  for (const auto& d : model_dimensions())
    // max_seq and rotary_base: model files only, not inline text.
    if (std::string(d.name) != "max_seq" && std::string(d.name) != "rotary_base")
      out.push_back({d.name, true});
  out.push_back({"swiglu", true});
  return out;
}

class predict_sweep : public ::testing::TestWithParam<sweep_case> {
protected:
  void SetUp() override {
    if (!std::filesystem::exists(test::paratune_exe()))
      GTEST_SKIP() << "paratune executable not built";
  }
};

TEST_P(predict_sweep, gives_a_possible_prediction_or_names_the_field) {
  const auto& c = GetParam();
  int predicted = 0, refused = 0;
  for (const auto& value : edge_values()) {
    const std::string base = "tp=2,mbs=1,gbs=64,seq=4096";
    std::vector<std::string> argv = {test::paratune_exe(), "predict", "--cluster", "dgx-a100-80g",
                                     "--gpus", "8", "--json"};
    if (c.model_dimension) {
      argv.insert(argv.end(), {"--model", inline_model(c.key, value), "--config", base});
    } else {
      argv.insert(argv.end(), {"--model", "llama3-8b", "--config", base + "," + c.key + "=" + value});
    }
    const auto r = test::run_program(argv);
    const auto what = c.key + "=" + value;
    ASSERT_TRUE(r.status == 0 || r.status == 2) << what << " exit " << r.status << ": " << r.err;
    if (r.status == 2) {
      ++refused;
      // Named as paratune names it, or in Megatron-LM's own words for a
      // start-up rule the value breaks ("tensor_model_parallel_size").
      const bool named = r.err.find("'" + c.key + "'") != std::string::npos
                         || r.err.find(c.key + " ") != std::string::npos
                         || r.err.find("breaks Megatron-LM's rules") != std::string::npos;
      EXPECT_TRUE(named) << what << ": " << r.err;
      continue;
    }
    ++predicted;
    const auto j = nlohmann::json::parse(r.out);
    // MFU counts attention whole (Megatron-LM's count) and may pass 1 at very
    // long sequences; what the kernels run may not.
    EXPECT_GT(j["mfu"].get<double>(), 0) << what;
    EXPECT_GT(j["kernel_utilization"].get<double>(), 0) << what;
    EXPECT_LE(j["kernel_utilization"].get<double>(), 1) << what;
    EXPECT_GE(j["data_parallel"].get<int>(), 1) << what;
    EXPECT_GE(j["micro_batches"].get<int>(), 1) << what;
    EXPECT_GT(j["iteration_time_s"].get<double>(), 0) << what;
  }
  // The sweep reaches both sides: most values are refused, and the key's
  // ordinary values (1 or a small power of two) are predicted.
  EXPECT_GT(refused, 40) << c.key;
  EXPECT_GE(predicted, 1) << c.key;
}

INSTANTIATE_TEST_SUITE_P(every_number, predict_sweep, ::testing::ValuesIn(all_cases()), case_name);

} // namespace
} // namespace paratune
