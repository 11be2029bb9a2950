// paratune-sim refuses what Megatron-LM's argparse and its own checks
// refuse, in argparse's words and with its exit status 2: each reproducer
// of issue 9 was accepted before (exit 0 and a plausible run).

#include <gtest/gtest.h>

#include "tests/sim/sim_process.hpp"

namespace paratune {
namespace {

struct bad_args {
  std::vector<std::string> extra;  ///< added to a valid Llama3-8B command line
  std::string error;               ///< argparse's "pretrain_gpt.py: error: ..." text
};

class sim_hostile_args : public ::testing::TestWithParam<bad_args> {};

TEST_P(sim_hostile_args, exit_2_naming_the_argument_and_its_range) {
  auto args = test::llama3_8b_args();
  for (const char* a : {"--tensor-model-parallel-size", "2", "--micro-batch-size", "1"})
    args.push_back(a);
  args.insert(args.end(), GetParam().extra.begin(), GetParam().extra.end());
  const auto r = test::run_sim(args);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("pretrain_gpt.py: error: " + GetParam().error + "\n"), std::string::npos)
      << r.err;
  EXPECT_TRUE(r.log.iterations.empty());
}

INSTANTIATE_TEST_SUITE_P(
    issue_9, sim_hostile_args,
    ::testing::Values(
        bad_args{{"--group-query-attention", "--num-query-groups", "512"},
                 "argument --num-query-groups 512: must divide --num-attention-heads 32"},
        bad_args{{"--ffn-hidden-size", "-1"},
                 "argument --ffn-hidden-size: -1 is outside the allowed range 1..4194304"},
        bad_args{{"--kv-channels", "-5"},
                 "argument --kv-channels: -5 is outside the allowed range 0..65536"},
        bad_args{{"--sim-failure-rate", "nan"},
                 "argument --sim-failure-rate: nan is outside the allowed range 0..1"},
        bad_args{{"--sim-failure-rate", "2"},
                 "argument --sim-failure-rate: 2 is outside the allowed range 0..1"},
        bad_args{{"--sim-time-scale", "-1"},
                 "argument --sim-time-scale: -1 is outside the allowed range 0..1000"},
        bad_args{{"--sim-world-size", "8.5"},
                 "argument --sim-world-size: expected an integer in 1..1048576, got '8.5'"},
        bad_args{{"--sim-world-size", "0x8"},
                 "argument --sim-world-size: expected an integer in 1..1048576, got '0x8'"},
        bad_args{{"--train-iters", "-1"},
                 "argument --train-iters: -1 is outside the allowed range 1..100000000"},
        bad_args{{"--micro-batch-size", "1073741824"},
                 "argument --micro-batch-size: 1073741824 is outside the allowed range 1..65536"},
        bad_args{{"--context-parallel-size", "1073741824"},
                 "argument --context-parallel-size: 1073741824 is outside the allowed range "
                 "1..1048576"},
        // fuzz/sim_args.cpp found these two (float-to-int casts, UBSan).
        bad_args{{"--sim-world-size", "1e10"},
                 "argument --sim-world-size: expected an integer in 1..1048576, got '1e10'"},
        bad_args{{"--sim-seed", "-1"},
                 "argument --sim-seed: -1 is outside the allowed range 0..9223372036854775807"},
        bad_args{{"--num-experts", "8", "--moe-router-topk", "9"},
                 "argument --moe-router-topk 9: must be between 1 and --num-experts 8"}),
    [](const auto& info) { return "case_" + std::to_string(info.index); });

} // namespace
} // namespace paratune
