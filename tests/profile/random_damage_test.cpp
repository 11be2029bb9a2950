// Deterministic random damage (byte flips, cuts, spliced junk) to real
// corpus files: every reader must answer with a result or an input_error.
#include "adapters/profile/gzip_file.hpp"
#include "adapters/profile/kineto_trace.hpp"
#include "adapters/profile/xprof_tools.hpp"
#include "adapters/profile/proto/xplane.pb.h"
#include "adapters/profile/xspace_profile.hpp"
#include "adapters/profile/xspace_reader.hpp"
#include "core/input_error.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <random>

namespace paratune {
namespace {

namespace fs = std::filesystem;

std::string damage_corpus(const std::string& rel) {
  return read_maybe_gzip(fs::path(test::data_dir()) / rel).data;
}

std::string damage(const std::string& in, std::mt19937& rng) {
  std::string s = in;
  std::uniform_int_distribution<std::size_t> pos(0, s.size() - 1);
  switch (rng() % 4) {
    case 0:  // flip a few bytes
      for (int i = 0; i < 8; ++i)
        s[pos(rng)] = static_cast<char>(rng());
      break;
    case 1:  // cut
      s.resize(pos(rng));
      break;
    case 2:  // splice structural characters
      for (int i = 0; i < 8; ++i)
        s[pos(rng)] = "{}[]\",:\\"[rng() % 8];
      break;
    default:  // drop a chunk from the middle
      s.erase(pos(rng), 1 + rng() % 4096);
      break;
  }
  return s;
}

int run_damaged(const std::string& original, int rounds,
                const std::function<void(const std::string&)>& read) {
  std::mt19937 rng(12345);
  int rejected = 0;
  for (int i = 0; i < rounds; ++i) {
    try {
      read(damage(original, rng));
    } catch (const input_error&) {
      ++rejected;
    }
  }
  return rejected;
}

TEST(RandomDamage, KinetoReader) {
  std::string text = damage_corpus("kineto/hta_sampled_rank-0_128ranks.json.gz");
  run_damaged(text, 150, [](const std::string& s) {
    auto t = parse_kineto_trace(s, "damaged.json");
    EXPECT_LE(t.event_count, 4855u + 8);
  });
}

TEST(RandomDamage, XprofToolReaders) {
  for (auto [file, tool] : {std::pair{"xprof/golden_tpu-training.overview_page.json", "overview_page"},
                            std::pair{"xprof/DERIVED_pruned.op_profile.json", "op_profile"},
                            std::pair{"xprof/legacy_demo.op_profile.json", "op_profile"},
                            std::pair{"xprof/golden_tpu-training.input_pipeline_analyzer.json",
                                      "input_pipeline_analyzer"}}) {
    std::string text = damage_corpus(file);
    run_damaged(text, 60, [tool = std::string(tool)](const std::string& s) {
      xprof_accumulator acc;
      apply_xprof_tool(tool, s, acc, "damaged");
      finish_xprof_profile(std::move(acc));
    });
  }
}

// Damaged bytes that libprotobuf still parses must derive a profile or
// throw input_error, never crash or throw anything else.
TEST(RandomDamage, XspaceReaderAndProfile) {
  std::string bytes = damage_corpus("xprof/tpu_inference_2.xplane.pb");
  int rejected = run_damaged(bytes, 60, [](const std::string& s) {
    tensorflow::profiler::XSpace space;
    parse_xspace_message(s, "damaged", space);
    summarize_xspace(space, 3);
    profile_from_xspace(space, "damaged", 20);
  });
  EXPECT_GT(rejected, 0);
}

TEST(RandomDamage, Gunzip) {
  std::string gz = read_whole_file(fs::path(test::data_dir()) / "kineto/hta_sampled_rank-0_128ranks.json.gz");
  run_damaged(gz, 60, [](const std::string& s) { gunzip(s, "damaged.gz"); });
}

} // namespace
} // namespace paratune
