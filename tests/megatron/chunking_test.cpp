// The parser's result must not depend on how the bytes arrive: a live tail
// delivers arbitrary pieces, lines split anywhere (even inside a UTF-8
// character or between '\r' and '\n').

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "adapters/megatron/megatron_log_json.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct fed {
  nlohmann::json log;
  int iterations = 0, memory = 0, errors = 0; // callback counts
};

template <class NextSize>
fed feed_in_chunks(const std::string& bytes, NextSize&& next_size) {
  megatron_log_parser p;
  fed out;
  p.on_iteration = [&](const iteration_record&) { ++out.iterations; };
  p.on_memory = [&](const memory_record&) { ++out.memory; };
  p.on_error = [&](const log_error&) { ++out.errors; };
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t n = std::min(next_size(), bytes.size() - at);
    p.feed(std::string_view(bytes).substr(at, n));
    at += n;
  }
  p.finish();
  out.log = to_json(p.log());
  return out;
}

void expect_same_for_every_chunking(const std::string& bytes) {
  const fed whole = feed_in_chunks(bytes, [&] { return bytes.size() + 1; });
  const fed one = feed_in_chunks(bytes, [] { return std::size_t{1}; });
  const fed seven = feed_in_chunks(bytes, [] { return std::size_t{7}; });
  std::mt19937 rng(20260914);
  std::uniform_int_distribution<std::size_t> size(1, 4096);
  const fed random = feed_in_chunks(bytes, [&] { return size(rng); });
  for (const fed* f : {&one, &seven, &random}) {
    EXPECT_EQ(f->log, whole.log);
    EXPECT_EQ(f->iterations, whole.iterations);
    EXPECT_EQ(f->memory, whole.memory);
    EXPECT_EQ(f->errors, whole.errors);
  }
  EXPECT_EQ(whole.iterations, static_cast<int>(whole.log["iterations"].size()));
  EXPECT_EQ(whole.memory, static_cast<int>(whole.log["memory"].size()));
}

class corpus_chunking : public ::testing::TestWithParam<const char*> {};

TEST_P(corpus_chunking, one_byte_seven_byte_and_random_chunks_give_the_same_log) {
  const std::string bytes = read_file(test::data_dir() + "/megatron_logs/" + GetParam());
  ASSERT_FALSE(bytes.empty());
  expect_same_for_every_chunking(bytes);
}

INSTANTIATE_TEST_SUITE_P(megatron_logs, corpus_chunking,
                         ::testing::Values("bigscience_gpt2-meg_n4_dp1_tp4_pp4-1809579.txt",
                                           "jindajia_Megatron-LM_debug_terminal_oom_issue525.txt",
                                           "mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt",
                                           "shifang99_core_v0.7.0_tp2_pp4_startup_only.txt"));

TEST(chunking, crlf_over_long_lines_and_a_missing_final_newline) {
  std::string bytes =
      "[default7]: [2024-01-01 00:00:01.5] iteration        1/      10 | elapsed time per "
      "iteration (ms): 100.0 |\r\n";
  bytes += std::string(megatron_log_parser::max_line_bytes + 100, 'x') + "\n";
  bytes += "[Rank 0] (after 1 iterations) memory (MB) | allocated: 1.5 | max allocated: 2.5 | "
           "reserved: 3.0 | max reserved: 4.0\r\n";
  bytes += "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB."; // no '\n'
  expect_same_for_every_chunking(bytes);
  const fed whole = feed_in_chunks(bytes, [&] { return bytes.size(); });
  EXPECT_EQ(whole.iterations, 1);
  EXPECT_EQ(whole.memory, 1);
  EXPECT_EQ(whole.errors, 1);
  EXPECT_TRUE(whole.log["partial"].get<bool>());
  EXPECT_EQ(whole.log["lines"].get<int>(), 4);
}

} // namespace
} // namespace paratune
