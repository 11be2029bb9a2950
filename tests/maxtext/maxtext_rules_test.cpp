// MaxText's rules as MaxText has them (core/tpu/maxtext_rule_table.cpp, at
// maxtext_rules_commit): per rule, the overrides that trip it, MaxText's
// message for them, and the overrides paratune exports for the same intent,
// which trip nothing.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "core/tpu/maxtext_args.hpp"
#include "core/tpu/maxtext_rules.hpp"
#include "core/tpu/tpu_mesh.hpp"

namespace paratune {
namespace {

using args = std::vector<std::string>;

// Every axis written, as paratune's export does (no -1 left to fill).
args mesh_args(int data, int fsdp, int tensor, std::string extra = {}) {
  args a = {"ici_data_parallelism=" + std::to_string(data),
            "ici_fsdp_parallelism=" + std::to_string(fsdp),
            "ici_tensor_parallelism=" + std::to_string(tensor), "ici_expert_parallelism=1",
            "dcn_data_parallelism=1"};
  if (!extra.empty())
    a.push_back(extra);
  return a;
}

std::vector<maxtext_rule> rules_of(const std::vector<maxtext_finding>& f) {
  std::vector<maxtext_rule> out;
  for (const auto& x : f)
    out.push_back(x.rule);
  return out;
}

// paratune's v6e-16 case (tests/fixtures/asap/v6e-16-hbm): a 7B model,
// batch 32 in 4 accumulation steps on 16 chips.
maxtext_launch v6e_16(const std::string& mesh) {
  maxtext_launch l;
  l.model.layers = 32; l.model.hidden = 4096; l.model.heads = 32; l.model.kv_heads = 32;
  l.model.head_dim = 128; l.model.ffn = 16384; l.model.vocab = 50257;
  l.ici = parse_mesh(mesh);
  l.dcn = parse_mesh("data=1");
  l.chips = 16;
  l.workload.global_batch = 32;
  l.workload.seq_len = 2048;
  l.workload.accumulation_steps = 4;
  return l;
}

std::string value_of(const args& a, const std::string& key) {
  for (const auto& kv : a)
    if (kv.rfind(key + "=", 0) == 0)
      return kv.substr(key.size() + 1);
  return "(absent)";
}

TEST(maxtext_rule_table, every_rule_has_one_sourced_row) {
  std::set<std::string_view> ids;
  for (const auto& row : maxtext_rule_table()) {
    EXPECT_TRUE(ids.insert(row.id).second) << row.id;
    EXPECT_GT(row.line, 0) << row.id;
    EXPECT_FALSE(row.file.empty()) << row.id;
    EXPECT_FALSE(row.message.empty()) << row.id;
    EXPECT_EQ(&row_of(row.rule), &row) << row.id;
  }
  EXPECT_EQ(ids.size(), 12u);
  EXPECT_EQ(row_of(maxtext_rule::ici_product).file, "utils/max_utils.py");
  EXPECT_EQ(row_of(maxtext_rule::ici_product).line, 479);
}

TEST(maxtext_rules, the_ici_product_must_be_the_slice) {
  const auto f = check_maxtext_overrides(mesh_args(2, 2, 2), {16, 1, 0});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::ici_product});
  EXPECT_EQ(f[0].printed(), "AssertionError: Number of devices per slice 16 does not match the "
                            "product of the ICI parallelism 8");
  EXPECT_TRUE(check_maxtext_overrides(mesh_args(2, 4, 2), {16, 1, 0}).empty());
  // Left unwritten, fsdp is base.yml's -1: it takes what the others leave.
  EXPECT_TRUE(check_maxtext_overrides(args{"ici_tensor_parallelism=4"}, {16, 1, 0}).empty());
}

// Issue 26: seq=4 on 64 chips, written as ici_sequence_parallelism, is
// dropped with the `sequence` axis, and the mesh covers 16 chips.
TEST(maxtext_rules, the_sequence_axis_is_gone_so_its_parallelism_is_dropped) {
  const auto f = check_maxtext_overrides(mesh_args(1, 4, 4, "ici_sequence_parallelism=4"),
                                         {64, 1, 0});
  ASSERT_EQ(rules_of(f),
            (std::vector{maxtext_rule::sequence_axis_ignored, maxtext_rule::ici_product}));
  EXPECT_EQ(f[0].message, "ici_sequence_parallelism=4 is ignored: 'sequence' is not one of "
                          "MaxText's mesh_axes");
  EXPECT_EQ(f[1].printed(), "AssertionError: Number of devices per slice 64 does not match the "
                            "product of the ICI parallelism 16");
  // paratune's export writes the seq axis as MaxText's context axis.
  maxtext_launch l = v6e_16("data=1,fsdp=4,model=4,seq=4");
  l.chips = 64;
  l.workload.global_batch = 64;
  const auto out = render_maxtext_args(l);
  EXPECT_EQ(value_of(out, "ici_context_parallelism"), "4");
  EXPECT_EQ(value_of(out, "ici_sequence_parallelism"), "(absent)");
  EXPECT_TRUE(check_maxtext_overrides(out, target_of(l)).empty());
}

TEST(maxtext_rules, the_dcn_product_must_be_the_slices) {
  auto a = mesh_args(1, 16, 1);
  a.push_back("dcn_fsdp_parallelism=2");
  const auto f = check_maxtext_overrides(a, {16, 4, 0});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::dcn_product});
  EXPECT_EQ(f[0].printed(), "AssertionError: Number of slices 4 does not match the product of "
                            "the DCN parallelism 2");
  // One slice: MaxText builds no DCN mesh and reads none of it.
  EXPECT_TRUE(check_maxtext_overrides(a, {16, 1, 0}).empty());
  // paratune's export over 4 slices: replica and data over DCN are MaxText's
  // dcn_data_parallelism, and the batch counts every chip of every slice.
  auto l = v6e_16("data=4,model=4");
  l.dcn = parse_mesh("replica=2,fsdp=2");
  l.chips = 64;
  l.workload.global_batch = 128;
  const auto out = render_maxtext_args(l);
  EXPECT_EQ(value_of(out, "dcn_data_parallelism"), "2");
  EXPECT_EQ(value_of(out, "dcn_fsdp_parallelism"), "2");
  EXPECT_EQ(value_of(out, "per_device_batch_size"), "0.5");
  EXPECT_EQ(target_of(l).chips_per_slice, 16);
  EXPECT_EQ(target_of(l).slices, 4);
  EXPECT_TRUE(check_maxtext_overrides(out, target_of(l)).empty());
}

// MaxText trains devices x per_device_batch_size x accumulation steps.
TEST(maxtext_rules, the_v6e_16_accumulation_case_trains_the_batch_it_names) {
  // What paratune exported before: per_device_batch_size = 32 / 16.
  auto old_export = mesh_args(4, 1, 4);
  old_export.push_back("per_device_batch_size=2");
  old_export.push_back("gradient_accumulation_steps=4");
  const auto f = check_maxtext_overrides(old_export, {16, 1, 32});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::global_batch_trained});
  EXPECT_EQ(f[0].message, "MaxText trains int(int(16 devices x per_device_batch_size 2.0) x "
                          "gradient_accumulation_steps 4) = 128 sequences per step, not 32");
  const auto l = v6e_16("data=4,model=4");
  const auto out = render_maxtext_args(l);
  EXPECT_EQ(value_of(out, "per_device_batch_size"), "0.5");
  EXPECT_EQ(value_of(out, "gradient_accumulation_steps"), "4");
  EXPECT_TRUE(check_maxtext_overrides(out, target_of(l)).empty());
}

TEST(maxtext_rules, a_batch_maxtext_cannot_split_is_refused_by_the_export) {
  auto l = v6e_16("data=4,model=4");
  l.workload.global_batch = 33;  // int(16 x 0.515625) = 8, x 4 = 32
  EXPECT_THROW(checked_maxtext_args(l), input_error);
  try {
    checked_maxtext_args(l);
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("global_batch_trained: MaxText trains"),
              std::string::npos)
        << e.what();
  }
}

TEST(maxtext_rules, moe_needs_its_width_in_base_moe_mlp_dim) {
  const args old_export = {"base_mlp_dim=14336", "num_experts=8", "num_experts_per_tok=2"};
  const auto f = check_maxtext_overrides(old_export, {});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::moe_mlp_dim_positive});
  EXPECT_EQ(f[0].printed(), "ValueError: moe_mlp_dim must be positive for MoE models "
                            "(num_experts > 1)");
  auto l = v6e_16("data=4,model=4");
  l.model.experts = 8; l.model.topk = 2; l.model.moe_ffn = 14336;
  const auto out = render_maxtext_args(l);
  EXPECT_EQ(value_of(out, "base_moe_mlp_dim"), "14336");
  EXPECT_EQ(value_of(out, "base_mlp_dim"), "14336");
  EXPECT_TRUE(check_maxtext_overrides(out, target_of(l)).empty());
}

TEST(maxtext_rules, a_fully_moe_model_has_one_mlp_width) {
  const args a = {"base_mlp_dim=16384", "base_moe_mlp_dim=14336", "num_experts=8"};
  const auto f = check_maxtext_overrides(a, {});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::fully_moe_mlp_dims});
  EXPECT_EQ(f[0].printed(), "ValueError: For a fully MoE model, base_mlp_dim must equal "
                            "base_moe_mlp_dim. Got base_mlp_dim=16384, base_moe_mlp_dim=14336.");
  // With dense layers first, or a decoder block MaxText fixes itself, it runs.
  auto dense_first = a;
  dense_first.push_back("first_num_dense_layers=1");
  EXPECT_TRUE(check_maxtext_overrides(dense_first, {}).empty());
  auto qwen = a;
  qwen.push_back("decoder_block=qwen3_moe");
  EXPECT_TRUE(check_maxtext_overrides(qwen, {}).empty());
}

TEST(maxtext_rules, remat_policy_names_are_maxtext_s) {
  auto f = check_maxtext_overrides(args{"remat_policy=save_everything"}, {});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::remat_policy_known});
  EXPECT_EQ(f[0].printed(), "AssertionError: Remat policy needs to be on list of remat policies");
  f = check_maxtext_overrides(args{"remat_policy=minimal_flash"}, {});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::remat_minimal_flash});
  EXPECT_FALSE(f[0].refuses());
  // paratune reads the old name and writes the new one.
  remat_policy p;
  ASSERT_TRUE(parse_remat_policy("minimal_flash", p));
  EXPECT_EQ(p, remat_policy::minimal_with_context);
  auto l = v6e_16("data=4,model=4");
  l.workload.remat = p;
  const auto out = render_maxtext_args(l);
  EXPECT_EQ(value_of(out, "remat_policy"), "minimal_with_context");
  EXPECT_TRUE(check_maxtext_overrides(out, target_of(l)).empty());
  for (const auto* name : {"none", "minimal", "full", "save_qkv_proj", "minimal_offloaded"})
    EXPECT_TRUE(check_maxtext_overrides(args{std::string("remat_policy=") + name}, {}).empty())
        << name;
  // Every policy paratune knows is exported as a name MaxText runs as is.
  for (auto policy : {remat_policy::none, remat_policy::minimal, remat_policy::minimal_with_context,
                      remat_policy::save_dot_with_context_except_mlp,
                      remat_policy::save_dot_except_mlpwi, remat_policy::save_dot_except_mlp,
                      remat_policy::save_qkv_proj, remat_policy::save_out_proj,
                      remat_policy::qkv_proj_offloaded, remat_policy::minimal_offloaded,
                      remat_policy::full}) {
    l.workload.remat = policy;
    EXPECT_TRUE(check_maxtext_overrides(render_maxtext_args(l), target_of(l)).empty())
        << to_string(policy);
  }
}

// paratune's `none` keeps every activation: only MaxText's NNX decoder does
// that with remat_policy=none; Linen's nn.remat(policy=None) keeps nothing.
TEST(maxtext_rules, none_is_exported_with_the_decoder_that_saves_everything) {
  const auto f = check_maxtext_overrides(args{"remat_policy=none", "pure_nnx_decoder=false"}, {});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::remat_none_decoder});
  auto l = v6e_16("data=4,model=4");
  l.workload.remat = remat_policy::none;
  const auto out = render_maxtext_args(l);
  EXPECT_EQ(value_of(out, "remat_policy"), "none");
  EXPECT_EQ(value_of(out, "pure_nnx_decoder"), "true");
  EXPECT_TRUE(check_maxtext_overrides(out, target_of(l)).empty());
}

// With model_name, MaxText applies that model's file and refuses a command
// line that sets one of its keys to another value (pyconfig.py:147).
TEST(maxtext_rules, a_model_file_key_written_with_another_value_is_refused) {
  auto f = check_maxtext_overrides(
      args{"model_name=llama3-8b", "rope_max_timescale=10000", "base_emb_dim=4096",
           "decoder_block=qwen2"},
      {});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::model_keys_overridden});
  EXPECT_EQ(f[0].printed(),
            "ValueError: Keys ['rope_max_timescale', 'decoder_block'] are overridden by both "
            "model config and CLI/kwargs with different values.This is not allowed, unless "
            "setting `override_model_config=True`.");
  EXPECT_EQ(f[0].row().file, "configs/pyconfig.py");
  EXPECT_EQ(f[0].row().line, 147);
  // The same value in another spelling is no conflict; override_model_config
  // lets the command line win.
  EXPECT_TRUE(check_maxtext_overrides(args{"model_name=llama3-8b", "rope_max_timescale=500000",
                                           "normalization_layer_epsilon=1e-05",
                                           "enable_dropout=false"},
                                      {})
                  .empty());
  EXPECT_TRUE(check_maxtext_overrides(args{"model_name=llama3-8b", "rope_max_timescale=10000",
                                           "override_model_config=true"},
                                      {})
                  .empty());
  // A key the file leaves to base.yml is free: qwen2.5-7b.yml has no
  // enable_dropout.
  EXPECT_TRUE(
      check_maxtext_overrides(args{"model_name=qwen2.5-7b", "enable_dropout=false"}, {}).empty());
}

TEST(maxtext_rules, model_name_and_decoder_block_are_maxtexts_values) {
  auto f = check_maxtext_overrides(args{"model_name=llama3-7b"}, {});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::model_name_known});
  EXPECT_EQ(f[0].printed(),
            "pydantic_core._pydantic_core.ValidationError: 1 validation error for MaxTextConfig "
            "model_name: Input should be one of configs/types.py's ModelName values "
            "[type=literal_error, input_value='llama3-7b', input_type=str]");
  EXPECT_EQ(f[0].row().line, 576);
  f = check_maxtext_overrides(args{"decoder_block=qwen2.5"}, {});
  ASSERT_EQ(rules_of(f), std::vector{maxtext_rule::decoder_block_known});
  EXPECT_TRUE(f[0].refuses());
  // A model MaxText ships that paratune has no file of is accepted as is.
  EXPECT_TRUE(check_maxtext_overrides(args{"model_name=mistral-7b"}, {}).empty());
  EXPECT_TRUE(check_maxtext_overrides(args{"decoder_block=qwen3_moe"}, {}).empty());
}

// The simulator reads the model a model_name's file builds, and refuses one
// that is not the experiment's.
TEST(maxtext_args_read, a_model_name_builds_its_files_model) {
  auto base = v6e_16("data=16");
  base.model.name = "llama3-8b";
  base.model.swiglu = true;
  base.model.position = position_embedding::rope;
  base.model.bias_linear = false;
  base.model.kv_heads = 8;
  base.model.ffn = 14336;
  base.model.vocab = 128256;
  base.model.rotary_base = 500000;
  const auto out = render_maxtext_args(base);
  EXPECT_EQ(value_of(out, "model_name"), "llama3-8b");
  EXPECT_EQ(value_of(out, "base_emb_dim"), "(absent)");  // the file sets it
  EXPECT_EQ(value_of(out, "enable_dropout"), "(absent)");  // the file sets false
  EXPECT_NO_THROW(read_maxtext_args(out, base));
  auto what = [&](const maxtext_launch& l) {
    try {
      read_maxtext_args(out, l);
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string("(read)");
  };
  auto other = base;
  other.model.rotary_base = 10000;
  EXPECT_EQ(what(other),
            "rope_max_timescale=500_000 from model_name=llama3-8b "
            "(configs/models/llama3-8b.yml:28) is not the experiment's model (10000)");
  other = base;
  other.model.qkv_bias = true;
  EXPECT_EQ(what(other), "decoder_block=llama2 from model_name=llama3-8b "
                         "(configs/models/llama3-8b.yml:29) is not the experiment's model (qwen2)");
  other = base;
  other.model.vocab = 32000;
  EXPECT_EQ(what(other), "vocab_size=128256 from model_name=llama3-8b "
                         "(configs/models/llama3-8b.yml:24) is not the experiment's model (32000)");
  // A key written over the file is the override's.
  auto written = out;
  written.push_back("override_model_config=true");
  written.push_back("vocab_size=32000");
  try {
    read_maxtext_args(written, base);
    ADD_FAILURE() << "read";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "MaxText override vocab_size=32000 is not the experiment's model "
                           "(128256)");
  }
}

// read_maxtext_args is render_maxtext_args read back: what the simulated
// trainer (paratune-tpu-sim train) takes from MaxText's command line.
TEST(maxtext_args_read, reads_back_every_launch_the_export_writes) {
  for (const char* mesh : {"data=4,model=4", "data=1,fsdp=4,model=4", "data=2,fsdp=2,seq=4",
                           "replica=2,data=2,model=4"}) {
    auto l = v6e_16(mesh);
    l.workload.remat = remat_policy::minimal_with_context;
    auto base = v6e_16("data=16");
    base.workload.global_batch = 64;  // the overrides say otherwise
    const auto back = read_maxtext_args(render_maxtext_args(l), base);
    // MaxText has no replica axis: paratune's replicas are its data axis.
    auto expected = l.ici;
    expected.set(mesh_axis::data, l.ici.at(mesh_axis::replica) * l.ici.at(mesh_axis::data));
    expected.set(mesh_axis::replica, 1);
    EXPECT_EQ(back.ici, expected) << mesh;
    EXPECT_EQ(back.dcn, parse_mesh("data=1")) << mesh;
    EXPECT_EQ(back.workload.global_batch, 32) << mesh;  // int(16 x 0.5) x 4
    EXPECT_EQ(back.workload.accumulation_steps, 4) << mesh;
    EXPECT_EQ(back.workload.seq_len, 2048) << mesh;
    EXPECT_EQ(back.workload.remat, remat_policy::minimal_with_context) << mesh;
  }
}

TEST(maxtext_args_read, an_auto_axis_takes_what_the_others_leave) {
  // An axis not written keeps the base's size (the experiment's, as
  // MaxText's keeps its config file's).
  const auto base = v6e_16("fsdp=16");
  const args a = {"ici_fsdp_parallelism=-1", "ici_tensor_parallelism=4", "run_name=x",
                  "steps=5", "ici_sequence_parallelism=1"};
  const auto back = read_maxtext_args(a, base);
  EXPECT_EQ(back.ici, parse_mesh("data=1,fsdp=4,model=4"));
  EXPECT_EQ(back.workload.global_batch, 32);  // not written: the base's
}

TEST(maxtext_args_read, names_the_override_it_cannot_read) {
  const auto base = v6e_16("data=16");
  auto what = [&](args a) {
    try {
      read_maxtext_args(a, base);
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string("(read)");
  };
  EXPECT_EQ(what({"steps"}), "MaxText override 'steps' is not key=value");
  EXPECT_EQ(what({"per_device_batch_size=two"}),
            "MaxText override per_device_batch_size=two is not a number");
  EXPECT_EQ(what({"per_device_batch_size=0.01"}),
            "MaxText override per_device_batch_size=0.01 trains no whole sequence on 16 chips");
  EXPECT_EQ(what({"ici_tensor_parallelism=2.5"}),
            "MaxText override ici_tensor_parallelism=2.5 must be a whole number of at least 1");
  EXPECT_EQ(what({"ici_data_parallelism=4", "ici_pipeline_parallelism=4"}),
            "MaxText override ici_pipeline_parallelism=4: paratune models no 'pipeline' mesh axis");
  EXPECT_EQ(what({"base_emb_dim=8192"}),
            "MaxText override base_emb_dim=8192 is not the experiment's model (4096)");
  EXPECT_EQ(what({"remat_policy=everything"}).rfind("MaxText override remat_policy=everything "
                                                    "is not one of ", 0),
            0u);
  EXPECT_EQ(what({"ici_data_parallelism=3", "ici_fsdp_parallelism=-1"}).rfind("mesh ", 0), 0u);
}

} // namespace
} // namespace paratune
