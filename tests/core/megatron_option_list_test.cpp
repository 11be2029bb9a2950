// Megatron-LM's option list: the text format of
// data/megatron_lm/pretrain_gpt_flags.txt and the file itself.

#include "core/megatron_option_list.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/input_error.hpp"
#include "core/megatron_args.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

TEST(megatron_option_list, reads_names_and_arities) {
  const auto list = megatron_option_list::parse("# a comment\n"
                                                "--mock-data 0\n"
                                                "--eval-iters 1\n\n"
                                                "--rampup-batch-size 3\n"
                                                "--data-path *\n"
                                                "--cp-comm-type +\n"
                                                "--maybe ?\n"
                                                "-h 0\n");
  EXPECT_EQ(list.size(), 7u);
  ASSERT_NE(list.find("--mock-data"), nullptr);
  EXPECT_EQ(list.find("--mock-data")->arity, option_arity::none);
  EXPECT_EQ(list.find("--eval-iters")->arity, option_arity::exactly);
  EXPECT_EQ(list.find("--eval-iters")->count, 1);
  EXPECT_EQ(list.find("--rampup-batch-size")->count, 3);
  EXPECT_EQ(list.find("--data-path")->arity, option_arity::any);
  EXPECT_EQ(list.find("--cp-comm-type")->arity, option_arity::at_least_one);
  EXPECT_EQ(list.find("--maybe")->arity, option_arity::optional);
  EXPECT_NE(list.find("-h"), nullptr);
  EXPECT_EQ(list.find("--mock"), nullptr); // no abbreviations: allow_abbrev=False
  EXPECT_EQ(list.find("--foo"), nullptr);
}

TEST(megatron_option_list, a_malformed_line_is_named) {
  try {
    megatron_option_list::parse("--ok 0\nbogus\n");
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(megatron_option_list::parse("--x two\n"), input_error);
}

megatron_option_list the_data_file() {
  std::ifstream in(test::source_dir() + "/data/megatron_lm/pretrain_gpt_flags.txt");
  std::stringstream text;
  text << in.rdbuf();
  return megatron_option_list::parse(text.str());
}

TEST(megatron_option_list, the_data_file_holds_megatrons_parser) {
  const auto list = the_data_file();
  EXPECT_EQ(list.size(), 878u);
  // The flags issue 23 found refused, and every flag paratune renders.
  for (const char* name : {"--mock-data", "--tokenizer-type", "--eval-iters",
                           "--position-embedding-type", "--disable-bias-linear",
                           "--num-virtual-stages-per-pipeline-rank", "--moe-router-pre-softmax",
                           "--expert-tensor-parallel-size", "--no-overlap-p2p-communication"})
    EXPECT_NE(list.find(name), nullptr) << name;
  megatron_launch l;
  l.model.layers = 32; l.model.hidden = 4096; l.model.heads = 32; l.model.kv_heads = 8;
  l.model.ffn = 14336; l.model.vocab = 128256; l.model.experts = 8; l.model.topk = 1;
  l.model.moe_ffn = 1024;
  // Every architecture flag too: rope with its scaling, the QKV bias alone,
  // QK layernorm, a shared expert.
  l.model.position = position_embedding::rope; l.model.rope_scaling_factor = 8;
  l.model.bias_linear = false; l.model.qkv_bias = true; l.model.qk_layernorm = true;
  l.model.shared_expert_ffn = 512;
  l.config.tp = 2; l.config.pp = 4; l.config.vpp = 2; l.config.ep = 2; l.config.sp = true;
  l.config.first_pp_layers = 4; l.config.last_pp_layers = 4;
  l.config.recompute = recompute_mode::full; l.config.dist_opt = true;
  l.config.overlap_grad = l.config.overlap_param = l.config.fused_ce = true;
  l.config.grad_reduce_bf16 = true;
  l.prec = precision::fp8;
  for (const auto& a : render_megatron_args(l)) {
    if (a.rfind("--", 0) == 0) {
      EXPECT_NE(list.find(a), nullptr) << a;
    }
  }
}

TEST(megatron_option_list, unmodelled_options_are_skipped_with_their_values) {
  const auto list = the_data_file();
  std::vector<std::string> unknown;
  const auto l = parse_megatron_args({"--num-layers", "32", "--data-path", "1.0", "/d/a", "0.5",
                                      "/d/b", "--lr=3e-4", "--rampup-batch-size", "32", "32",
                                      "1000", "--mock-data", "--tensor-model-parallel-size", "2",
                                      "--foo", "bar"},
                                     &unknown, &list);
  EXPECT_EQ(l.model.layers, 32);
  EXPECT_EQ(l.config.tp, 2);
  EXPECT_EQ(unknown, (std::vector<std::string>{"--foo", "bar"}));
  EXPECT_THROW(parse_megatron_args({"--eval-iters"}, &unknown, &list), input_error);
  EXPECT_THROW(parse_megatron_args({"--mock-data=1"}, &unknown, &list), input_error);
}

} // namespace
} // namespace paratune
