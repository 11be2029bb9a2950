#include "core/shell_quote.hpp"
#include "core/training_config.hpp"
#include "core/megatron_args.hpp"
#include "core/input_error.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

TEST(training_config, parses_canonical_keys) {
  auto c = parse_config("tp=2, pp=4,mbs=2,gbs=512,seq=8192,sp=true,"
                        "recompute=selective,dist_opt=1,overlap_grad=true");
  EXPECT_EQ(c.tp, 2);
  EXPECT_EQ(c.pp, 4);
  EXPECT_EQ(c.mbs, 2);
  EXPECT_EQ(c.gbs, 512);
  EXPECT_EQ(c.seq, 8192);
  EXPECT_TRUE(c.sp);
  EXPECT_EQ(c.recompute, recompute_mode::selective);
  EXPECT_TRUE(c.dist_opt);
  EXPECT_TRUE(c.overlap_grad);
  EXPECT_EQ(c.data_parallel(16), 2);
  EXPECT_EQ(c.micro_batches(16), 128);
}

TEST(training_config, rejects_unknown_keys_and_bad_values) {
  try {
    parse_config("tp=2,bogus=1");
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown config key 'bogus'"), std::string::npos);
  }
  EXPECT_THROW(parse_config("tp=two"), input_error);
  EXPECT_THROW(parse_config("sp=maybe"), input_error);
  EXPECT_THROW(parse_config("recompute=half"), input_error);
  EXPECT_THROW(parse_config("tp"), input_error);
  EXPECT_THROW(parse_config("mbs=-1"), input_error);
}

TEST(training_config, canonical_key_is_stable_and_distinguishes) {
  auto a = parse_config("tp=2,pp=1");
  auto b = parse_config("pp=1,tp=2");
  EXPECT_EQ(canonical_key(a), canonical_key(b));
  EXPECT_EQ(canonical_key(a).substr(0, 24), "tp=2,pp=1,cp=1,ep=1,vpp=");
  b.recompute_layers = 2;
  EXPECT_NE(canonical_key(a), canonical_key(b));
  EXPECT_EQ(parse_config(canonical_key(b)), b);
}

TEST(training_config, describes_a_change) {
  auto a = parse_config("recompute=full,mbs=1");
  auto b = parse_config("recompute=none,mbs=2");
  EXPECT_EQ(describe_change(a, b), "mbs 1->2, recompute full->none");
  EXPECT_EQ(describe_change(a, a), "initial");
}

TEST(training_config, one_table_names_every_key_and_its_field) {
  const auto& table = config_key_table();
  ASSERT_EQ(table.size(), config_keys().size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& k = table[i];
    EXPECT_EQ(k.name, config_keys()[i]);
    EXPECT_EQ(find_config_key(k.name), &k);
    EXPECT_EQ((k.int_field != nullptr) + (k.bool_field != nullptr) + (k.mode_field != nullptr), 1)
        << k.name;
    EXPECT_FALSE(k.display.empty()) << k.name;
    // A field written through the table reads back through the text interface,
    // and the fingerprint sees every key.
    training_config c;
    const auto before = fingerprint(c);
    k.write(c, k.read(c) == 1 ? 2 : 1);
    EXPECT_NE(fingerprint(c), before) << k.name;
    EXPECT_EQ(parse_config(k.name + "=" + get_value(c, k.name)), c) << k.name;
  }
  EXPECT_EQ(find_config_key("tpp"), nullptr);
  EXPECT_EQ(find_config_key("gbs")->display, "GLOBAL_BATCH_SIZE");
  EXPECT_EQ(find_config_key("tp")->display, "TP");
  EXPECT_EQ(find_config_key("recompute_method")->bool_field, &training_config::recompute_block);
}

TEST(training_config, unknown_key_lists_the_known_ones_in_order) {
  try {
    parse_config("tpp=2");
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown config key 'tpp' (known: tp, pp, cp, ep, vpp, mbs, gbs, seq, sp, "
              "recompute, recompute_method, recompute_layers, dist_opt, overlap_grad, "
              "overlap_param, fused_ce, first_pp_layers, last_pp_layers, pp_account_embedding, "
            "pp_account_loss, grad_reduce_bf16)");
  }
}

TEST(megatron_args, round_trip_through_megatron_flags) {
  megatron_launch l;
  l.model.layers = 32; l.model.hidden = 4096; l.model.heads = 32; l.model.kv_heads = 8;
  l.model.ffn = 14336; l.model.vocab = 128256; l.model.swiglu = true;
  l.model.rmsnorm = true; l.model.tied_embeddings = false;
  l.config = parse_config("tp=2,pp=4,vpp=2,mbs=2,gbs=512,seq=8192,sp=true,"
                          "recompute=full,recompute_method=block,recompute_layers=2,"
                          "dist_opt=true,overlap_grad=true,overlap_param=true,fused_ce=true");
  l.prec = precision::fp16;
  l.train_iters = 20;
  auto args = render_megatron_args(l);
  auto text = shell_command(args);
  EXPECT_NE(text.find("--tensor-model-parallel-size 2"), std::string::npos);
  EXPECT_NE(text.find("--num-layers-per-virtual-pipeline-stage 4"), std::string::npos);
  EXPECT_NE(text.find("--recompute-granularity full --recompute-method block "
                      "--recompute-num-layers 2"), std::string::npos);
  EXPECT_NE(text.find("--use-distributed-optimizer --overlap-grad-reduce "
                      "--overlap-param-gather --cross-entropy-loss-fusion --fp16"),
            std::string::npos);
  auto back = parse_megatron_args(args);
  EXPECT_EQ(back.config, l.config);
  EXPECT_EQ(back.prec, precision::fp16);
  EXPECT_EQ(back.train_iters, 20);
  EXPECT_EQ(back.model.kv_heads, 8);
  EXPECT_EQ(back.model.ffn, 14336);
  EXPECT_TRUE(back.model.swiglu);
  EXPECT_TRUE(back.model.rmsnorm);
  EXPECT_FALSE(back.model.tied_embeddings);
}

// NVIDIA's Llama 3.1 405B recipe: the split counts the embedding and the
// loss (128 = 126 + 2 layers, 2 per virtual stage), gradients reduce in bf16.
TEST(megatron_args, pipeline_accounting_and_bf16_grads_round_trip) {
  megatron_launch l;
  l.model.layers = 126; l.model.hidden = 16384; l.model.heads = 128; l.model.kv_heads = 8;
  l.model.ffn = 53248; l.model.vocab = 128256; l.model.swiglu = true;
  l.config = parse_config("tp=8,pp=8,cp=2,vpp=8,mbs=1,gbs=512,seq=8192,sp=true,dist_opt=true,"
                          "pp_account_embedding=true,pp_account_loss=true,grad_reduce_bf16=true");
  l.prec = precision::fp8;
  const auto text = shell_command(render_megatron_args(l));
  EXPECT_NE(text.find("--num-layers-per-virtual-pipeline-stage 2"), std::string::npos) << text;
  EXPECT_NE(text.find("--account-for-embedding-in-pipeline-split "
                      "--account-for-loss-in-pipeline-split"), std::string::npos) << text;
  EXPECT_NE(text.find("--grad-reduce-in-bf16"), std::string::npos) << text;
  const auto back = parse_megatron_args(render_megatron_args(l));
  EXPECT_EQ(back.config, l.config);
  // Megatron-Bridge names the virtual stages directly.
  auto args = render_megatron_args(l);
  args.push_back("--num-virtual-stages-per-pipeline-rank");
  args.push_back("4");
  EXPECT_EQ(parse_megatron_args(args).config.vpp, 4);
}

TEST(megatron_args, bad_flag_value_names_the_flag) {
  try {
    parse_megatron_args({"--micro-batch-size", "x"});
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "argument --micro-batch-size: expected an integer in 1..65536, got 'x'");
  }
}

TEST(megatron_args, reads_the_architecture_as_megatron_lm_does) {
  // Without the flags: Megatron-LM's defaults, a learned table and biases.
  const auto plain = parse_megatron_args({}).model;
  EXPECT_EQ(plain.position, position_embedding::learned_absolute);
  EXPECT_TRUE(plain.bias_linear);
  EXPECT_FALSE(plain.qkv_bias);
  EXPECT_EQ(plain.rotary_base, 10000);
  EXPECT_DOUBLE_EQ(plain.norm_epsilon, 1e-5);
  // The older rope switch; --use-rope-scaling alone takes Megatron's factor 8.
  const auto llama = parse_megatron_args({"--use-rotary-position-embeddings", "--rotary-base",
                                          "500000", "--use-rope-scaling", "--norm-epsilon",
                                          "1e-6"}).model;
  EXPECT_EQ(llama.position, position_embedding::rope);
  EXPECT_EQ(llama.rotary_base, 500000);
  EXPECT_DOUBLE_EQ(llama.rope_scaling_factor, 8);
  EXPECT_DOUBLE_EQ(llama.norm_epsilon, 1e-6);
  EXPECT_DOUBLE_EQ(parse_megatron_args({"--rope-scaling-factor=4", "--position-embedding-type",
                                        "rope", "--use-rope-scaling"})
                     .model.rope_scaling_factor,
                   4);
  // Scaling without rope builds nothing.
  EXPECT_DOUBLE_EQ(parse_megatron_args({"--use-rope-scaling"}).model.rope_scaling_factor, 0);
  // --add-qkv-bias beside the default biases changes nothing; alone it is Qwen2's.
  const auto qwen = parse_megatron_args({"--disable-bias-linear", "--add-qkv-bias"}).model;
  EXPECT_FALSE(qwen.bias_linear);
  EXPECT_TRUE(qwen.has_qkv_bias());
  EXPECT_EQ(parse_megatron_args({"--position-embedding-type", "mrope"}).model.position,
            position_embedding::rope);
  EXPECT_EQ(parse_megatron_args({"--position-embedding-type", "relative"}).model.position,
            position_embedding::none);
  try {
    parse_megatron_args({"--position-embedding-type", "alibi"});
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "argument --position-embedding-type: invalid choice 'alibi' (choose from "
              "'learned_absolute', 'rope', 'mrope', 'relative', 'none')");
  }
}

TEST(megatron_args, recompute_activations_is_selective_recomputation) {
  // validate_args sets selective granularity for --recompute-activations
  // (arguments.py:607 at d98e8a64), over a --recompute-granularity given too.
  EXPECT_EQ(parse_megatron_args({"--recompute-activations"}).config.recompute,
            recompute_mode::selective);
  EXPECT_EQ(parse_megatron_args({"--recompute-granularity", "full", "--recompute-activations"})
              .config.recompute,
            recompute_mode::selective);
  EXPECT_EQ(parse_megatron_args({"--recompute-granularity", "full"}).config.recompute,
            recompute_mode::full);
  EXPECT_EQ(parse_megatron_args({}).config.recompute, recompute_mode::none);
}

} // namespace
} // namespace paratune

#include "core/trial_scoring.hpp"

namespace paratune {
namespace {

TEST(trial_scoring, skips_warm_up_and_hiccups) {
  std::vector<iteration_sample> s = {{1, 30000, 5}, {2, 1300, 150}, {3, 1000, 200},
                                     {4, 1010, 198}, {5, 2500, 80}, {6, 990, 202}};
  auto r = score_iterations(s);
  EXPECT_EQ(r.scored, 3);
  EXPECT_DOUBLE_EQ(r.iteration_ms, 1000);
  EXPECT_DOUBLE_EQ(r.tflops_per_gpu, 200);
  EXPECT_EQ(score_iterations({{1, 100, 1}, {2, 100, 1}}).scored, 0);
}

} // namespace
} // namespace paratune
