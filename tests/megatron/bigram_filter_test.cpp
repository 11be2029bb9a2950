// The byte-pair filter that lets the error scanner skip most lines must
// never rule out a line that holds the phrase.

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "adapters/megatron/bigram_filter.hpp"

namespace paratune {
namespace {

TEST(bigram_filter, never_hides_a_phrase_that_is_there) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> byte(1, 255), len(0, 300);
  const std::string phrases[] = {"CUDA out of memory", "is not divisible by", "NaN or Inf", "ab",
                                 "Watchdog caught collective operation timeout"};
  for (int round = 0; round < 2000; ++round) {
    const std::string& phrase = phrases[round % 5];
    std::string line(static_cast<std::size_t>(len(rng)), ' ');
    for (auto& c : line) c = static_cast<char>(byte(rng));
    line.insert(line.size() / 2, phrase);
    EXPECT_TRUE(bigram_filter(line).may_contain(bigram_filter::signature_of(phrase))) << round;
  }
}

TEST(bigram_filter, rules_out_typical_noise) {
  const auto sig = bigram_filter::signature_of("CUDA out of memory");
  EXPECT_FALSE(bigram_filter("[default3]:gpu-node-17:2134:2377 [3] NCCL INFO Channel 02/0 : 3[3] "
                             "-> 4[4] via P2P/IPC/read")
                   .may_contain(sig));
  EXPECT_FALSE(bigram_filter("").may_contain(sig));
}

} // namespace
} // namespace paratune
