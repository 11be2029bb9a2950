// `paratune export --format maxtext`: a TPU session's fastest run, read back
// from the pool, as MaxText overrides; a GPU session has no such form.

#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/tpu/tpu_mesh.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct maxtext_export : ::testing::Test {
  void SetUp() override {
    test::use_source_configs();
    dir = test::make_temp_dir("maxtext-export");
  }
  void TearDown() override { fs::remove_all(dir); }
  test::program_result paratune(std::vector<std::string> args) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    return test::run_program(args);
  }
  std::string dir;
};

TEST_F(maxtext_export, a_tpu_session_exports_its_fastest_mesh_as_maxtext_overrides) {
  // v6e-16 (4x4), batch 32 in 4 accumulation steps, full remat.
  const auto exp = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
  const auto pool = dir + "/pool";
  auto r = paratune({"tune", exp, "--trials", "4", "--json", "--db", pool});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto session = j["session"].get<std::string>();
  const auto best = parse_mesh(j["best"]["mesh"].get<std::string>());

  const auto m = paratune({"export", session, "--db", pool, "--format", "maxtext"});
  ASSERT_EQ(m.status, 0) << m.err;
  // paratune's seq axis is MaxText's context axis (`sequence` is no mesh
  // axis any more), and MaxText trains 16 chips x 0.5 x 4 steps = the 32
  // sequences the experiment names (core/tpu/maxtext_rule_table.cpp).
  const auto expected = fmt::format(
    "ici_data_parallelism={} ici_fsdp_parallelism={} ici_context_parallelism={} "
    "ici_tensor_parallelism={} ici_expert_parallelism={} dcn_data_parallelism=1 "
    "dcn_fsdp_parallelism=1 dcn_context_parallelism=1 dcn_tensor_parallelism=1 "
    "dcn_expert_parallelism=1 per_device_batch_size=0.5 max_target_length=2048 "
    "gradient_accumulation_steps=4 remat_policy=full ",
    best.at(mesh_axis::replica) * best.at(mesh_axis::data), best.at(mesh_axis::fsdp),
    best.at(mesh_axis::seq), best.at(mesh_axis::model), best.at(mesh_axis::expert));
  EXPECT_EQ(m.out.rfind(expected, 0), 0u) << m.out << "\nexpected " << expected;
  EXPECT_NE(m.out.find(" base_num_decoder_layers=32 "), std::string::npos) << m.out;
  // GPT-3 7B has no MaxText model file: every architecture key is written,
  // and dropout is off for a throughput run (base.yml has it on).
  for (const char* key : {" decoder_block=gpt3 ", " 'mlp_activations=[gelu]' ",
                          " normalization_layer_epsilon=1e-05 ", " trainable_position_size=4096 ",
                          " attention_bias=true ", " logits_via_embedding=true ",
                          " enable_dropout=false"})
    EXPECT_NE(m.out.find(key), std::string::npos) << key << " in " << m.out;
  EXPECT_EQ(m.out.find("model_name="), std::string::npos) << m.out;
  // The diagnosis moved the run from model=1 to the expert's model=4.
  EXPECT_NE(m.out.find("ici_tensor_parallelism=4 "), std::string::npos) << m.out;

  const auto megatron = paratune({"export", session, "--db", pool});
  EXPECT_EQ(megatron.status, 2);
  EXPECT_EQ(megatron.err, "error: session '" + session + "' is a TPU (MaxText) session: it has "
                          "no Megatron-LM form; use --format maxtext or --format json\n");
}

// Llama-3-8B is a model MaxText ships: the export names its model file and
// adds only what the file leaves to base.yml.
TEST_F(maxtext_export, a_model_maxtext_ships_is_exported_by_its_model_name) {
  const auto exp = test::asap_dir("v5e-256-comm") + "/experiment.yaml";
  const auto pool = dir + "/pool";
  auto r = paratune({"tune", exp, "--trials", "2", "--json", "--db", pool});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto session = nlohmann::json::parse(r.out)["session"].get<std::string>();
  const auto m = paratune({"export", session, "--db", pool, "--format", "maxtext"});
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_NE(m.out.find(" model_name=llama3-8b "), std::string::npos) << m.out;
  // llama3-8b.yml sets the sizes, rope 500000, epsilon, block and dropout
  // off; writing them again with another value is what MaxText refuses.
  for (const char* key : {"base_emb_dim=", "rope_max_timescale=", "decoder_block=",
                          "enable_dropout="})
    EXPECT_EQ(m.out.find(key), std::string::npos) << key << " in " << m.out;
  for (const char* key : {" attention_bias=false", " use_qk_norm=false",
                          " normalize_embedding_logits=false"})
    EXPECT_NE(m.out.find(key), std::string::npos) << key << " in " << m.out;
}

TEST_F(maxtext_export, a_gpu_session_has_no_maxtext_form) {
  const auto job = test::source_dir() + "/configs/examples/llama3-8b-a100x8.yaml";
  const auto pool = dir + "/pool";
  auto r = paratune({"tune", job, "--db", pool, "--trials", "2", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto session = nlohmann::json::parse(r.out)["session"].get<std::string>();
  const auto m = paratune({"export", session, "--db", pool, "--format", "maxtext"});
  EXPECT_EQ(m.status, 2);
  EXPECT_EQ(m.out, "");
  EXPECT_EQ(m.err, "error: session '" + session + "' is a GPU (Megatron-LM) session: it has no "
                   "MaxText form; use --format megatron or --format json\n");
}

} // namespace
} // namespace paratune
