// Damaged Kineto traces: a clear input_error, or a partial result from the
// events before the damage; never a crash.
#include "adapters/profile/gzip_file.hpp"
#include "adapters/profile/kineto_trace.hpp"
#include "core/input_error.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace paratune {
namespace {

namespace fs = std::filesystem;

fs::path kineto_corpus(const std::string& name) {
  return fs::path(test::data_dir()) / "kineto" / name;
}

std::string nccl_text() {
  return read_maybe_gzip(kineto_corpus("hta_nccl_data_2rank_allreduce_with_comm_metadata.json.gz")).data;
}

std::string error_of(std::string_view text, std::string_view source = "t.json") {
  try {
    parse_kineto_trace(text, source);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

TEST(KinetoMalformed, TruncatedTraceGivesPartialPrefix) {
  std::string text = nccl_text();
  // Cut in the middle of traceEvents, at several offsets (inside strings,
  // numbers, between events).
  for (std::size_t cut : {text.size() / 2, text.size() / 2 + 7, text.size() / 3 + 13}) {
    auto t = parse_kineto_trace(std::string_view(text).substr(0, cut), "cut.json");
    EXPECT_TRUE(t.partial) << cut;
    EXPECT_GT(t.event_count, 1000u) << cut;
    EXPECT_LT(t.event_count, 40573u) << cut;
    EXPECT_EQ(*t.distributed.world_size, 2);  // the header came before the events
    bool named = false;
    for (const auto& w : t.warnings)
      named |= w.find("cut.json") != std::string::npos;
    EXPECT_TRUE(named) << cut;
  }
}

TEST(KinetoMalformed, TruncatedGzipFileGivesPartial) {
  std::string gz = read_whole_file(kineto_corpus("hta_nccl_data_2rank_allreduce_with_comm_metadata.json.gz"));
  auto dir = fs::path(test::make_temp_dir("kineto-gz"));
  auto path = dir / "half.json.gz";
  std::ofstream(path, std::ios::binary) << gz.substr(0, gz.size() / 2);
  auto t = read_kineto_trace(path);
  EXPECT_TRUE(t.partial);
  EXPECT_GT(t.kernel_count, 0u);
  bool said_gzip = false;
  for (const auto& w : t.warnings)
    said_gzip |= w.find("gzip stream is truncated") != std::string::npos;
  EXPECT_TRUE(said_gzip);
  fs::remove_all(dir);
}

TEST(KinetoMalformed, BrokenGzipIsAnError) {
  std::string gz = read_whole_file(kineto_corpus("hta_sampled_rank-0_128ranks.json.gz"));
  for (std::size_t i = 200; i < 600; ++i)
    gz[i] = static_cast<char>(gz[i] * 7 + 3);
  auto dir = fs::path(test::make_temp_dir("kineto-gz"));
  auto path = dir / "broken.json.gz";
  std::ofstream(path, std::ios::binary) << gz;
  try {
    read_kineto_trace(path);
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.json.gz"), std::string::npos);
  }
  fs::remove_all(dir);
}

TEST(KinetoMalformed, JunkAndWrongShapes) {
  std::string junk;
  for (int i = 0; i < 10000; ++i)
    junk.push_back(static_cast<char>((i * 151 + 17) & 0xff));
  EXPECT_NE(error_of(junk, "junk.bin").find("junk.bin"), std::string::npos);
  EXPECT_FALSE(error_of("").empty());
  EXPECT_FALSE(error_of("42").empty());
  EXPECT_FALSE(error_of("{\"schemaVersion\": 1}").empty());  // no traceEvents
  EXPECT_FALSE(error_of("{\"traceEvents\": 7}").empty());
  EXPECT_FALSE(error_of("{\"traceEvents\": [").empty());
  EXPECT_FALSE(error_of(std::string(100000, '[')).empty());
}

TEST(KinetoMalformed, OddEventsAreSkippedNotFatal) {
  auto t = parse_kineto_trace(R"({"traceEvents": [
      7, "x", null, [],
      {"ph": "X", "cat": "kernel", "name": "k", "ts": "soon", "dur": 5, "pid": 0},
      {"ph": "X", "cat": "kernel", "name": "k", "ts": 10, "dur": -5, "pid": 0},
      {"ph": "X", "cat": "kernel", "name": 12, "ts": 10, "dur": 5, "pid": "Spans"},
      {"ph": "X", "cat": "kernel", "name": "good", "ts": 100, "dur": 50, "pid": 0, "tid": 7},
      {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#x", "ts": 90, "dur": 100}
    ]})", "odd.json");
  EXPECT_FALSE(t.partial);
  EXPECT_EQ(t.event_count, 9u);
  EXPECT_EQ(t.kernel_count, 2u);  // the unnamed one on a string pid, and "good"
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_FALSE(t.steps[0].number);
  EXPECT_DOUBLE_EQ(t.steps[0].gpu.compute_us, 50.0);
  EXPECT_FALSE(t.warnings.empty());
}

TEST(KinetoMalformed, BareArrayFormAndEmptyTrace) {
  auto t = parse_kineto_trace(
      R"js([{"ph":"X","cat":"kernel","name":"a","ts":0,"dur":10,"pid":1},
          {"ph":"X","cat":"kernel","name":"ncclDevKernel_AllGather_RING_LL(x)","ts":5,"dur":10,"pid":1}])js",
      "array.json");
  EXPECT_EQ(t.kernel_count, 2u);
  EXPECT_EQ(t.comm_kernel_count, 1u);
  EXPECT_EQ(*t.primary_device, 1);
  EXPECT_DOUBLE_EQ(t.total.window_us, 15.0);
  EXPECT_DOUBLE_EQ(t.total.exposed_comm_us, 5.0);
  EXPECT_DOUBLE_EQ(t.total.overlapped_comm_us(), 5.0);

  auto empty = parse_kineto_trace(R"({"traceEvents": []})", "empty.json");
  EXPECT_EQ(empty.kernel_count, 0u);
  EXPECT_FALSE(empty.primary_device);
  EXPECT_DOUBLE_EQ(empty.total.window_us, 0.0);
  EXPECT_DOUBLE_EQ(empty.gpu_busy_share(), 0.0);
}

// fuzz/kineto.cpp found this: a device memory size beyond uint64's range
// was converted from double, which is undefined behaviour.
TEST(KinetoMalformed, DeviceMemoryOutOfRangeIsLeftUnset) {
  auto t = parse_kineto_trace(R"({"deviceProperties": [
      {"id": 0, "totalGlobalMem": 4.88889e125}, {"id": 1, "totalGlobalMem": -1},
      {"id": 2, "totalGlobalMem": 85899345920}],
    "traceEvents": [{"ph":"X","cat":"kernel","name":"a","ts":0,"dur":10,"pid":0}]})",
                              "devices.json");
  ASSERT_EQ(t.devices.size(), 3u);
  EXPECT_EQ(t.devices[0].total_global_mem, 0u);
  EXPECT_EQ(t.devices[1].total_global_mem, 0u);
  EXPECT_EQ(t.devices[2].total_global_mem, 85899345920u);
}

} // namespace
} // namespace paratune
