#include "adapters/profile/gzip_file.hpp"
#include "core/input_error.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace paratune {
namespace {

namespace fs = std::filesystem;

std::string corpus_bytes(const std::string& rel) {
  return read_whole_file(fs::path(test::data_dir()) / rel);
}

TEST(GzipFile, InflatesCorpusFile) {
  auto f = read_maybe_gzip(fs::path(test::data_dir()) / "kineto/hta_sampled_rank-0_128ranks.json.gz");
  EXPECT_FALSE(f.truncated);
  EXPECT_EQ(f.data.size(), 1759570u);
  EXPECT_EQ(f.data.front(), '{');
}

TEST(GzipFile, PlainFilePassesThrough) {
  auto f = read_maybe_gzip(fs::path(test::data_dir()) / "kineto/hta_alexnet_A100_single_gpu.pt.trace.json");
  EXPECT_EQ(f.data.size(), 319512u);
  EXPECT_FALSE(f.truncated);
}

TEST(GzipFile, TruncatedStreamKeepsPrefix) {
  std::string gz = corpus_bytes("kineto/hta_sampled_rank-0_128ranks.json.gz");
  auto f = gunzip(std::string_view(gz).substr(0, gz.size() / 2), "half.gz");
  EXPECT_TRUE(f.truncated);
  EXPECT_GT(f.data.size(), 100000u);
  EXPECT_LT(f.data.size(), 1759570u);
}

TEST(GzipFile, CorruptStreamThrowsNamingTheSource) {
  std::string gz = corpus_bytes("kineto/hta_sampled_rank-0_128ranks.json.gz");
  for (std::size_t i = 100; i < 400; ++i)
    gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  try {
    gunzip(gz, "broken.json.gz");
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.json.gz"), std::string::npos);
  }
  EXPECT_THROW(gunzip(std::string("\x1f\x8b\x08\x00garbagegarbage", 18), "hdr.gz"), input_error);
}

TEST(GzipFile, SizeLimitStopsBombs) {
  std::string gz = corpus_bytes("kineto/hta_sampled_rank-0_128ranks.json.gz");
  EXPECT_THROW(gunzip(gz, "big.gz", 1000), input_error);
}

TEST(GzipFile, MissingFileThrows) {
  EXPECT_THROW(read_maybe_gzip("/nonexistent/paratune/file.json"), input_error);
}

} // namespace
} // namespace paratune
