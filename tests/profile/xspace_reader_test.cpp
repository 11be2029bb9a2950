// The real XSpace in the corpus, read with libprotobuf from paratune's schema.
#include "adapters/profile/xprof_reader.hpp"
#include "adapters/profile/xspace_reader.hpp"
#include "core/input_error.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace paratune {
namespace {

namespace fs = std::filesystem;

fs::path xplane() {
  return fs::path(test::data_dir()) / "xprof" / "tpu_inference_2.xplane.pb";
}

TEST(XspaceReader, ReadsPlanesLinesAndTopEvents) {
  auto s = read_xspace_file(xplane(), 3);
  ASSERT_EQ(s.planes.size(), 7u);
  EXPECT_EQ(s.planes[0].name, "/device:TPU:0");
  EXPECT_EQ(s.planes[3].name, "/device:TPU:3");
  EXPECT_EQ(s.planes[4].name, "/host:metadata");
  EXPECT_EQ(s.planes[5].name, "/host:CPU");
  EXPECT_EQ(s.planes[6].name, "Task Environment");

  const auto& tpu0 = s.planes[0];
  ASSERT_EQ(tpu0.lines.size(), 5u);
  EXPECT_EQ(tpu0.lines[0].name, "XLA Modules");
  EXPECT_EQ(tpu0.lines[0].event_count, 105u);
  EXPECT_EQ(tpu0.lines[1].name, "XLA Ops");
  EXPECT_EQ(tpu0.lines[1].event_count, 1504u);
  EXPECT_EQ(tpu0.event_count, 2317u);
  EXPECT_EQ(tpu0.event_metadata_count, 138u);
  ASSERT_EQ(tpu0.top_events.size(), 3u);
  // Events are grouped by metadata display name ("async-copy" spans 600 events).
  EXPECT_EQ(tpu0.top_events[0].name, "async-copy");
  EXPECT_EQ(tpu0.top_events[0].count, 600u);
  EXPECT_DOUBLE_EQ(tpu0.top_events[0].total_ps, 197605761832850.0);
  EXPECT_EQ(tpu0.top_events[1].name, "jit_f(12190760917235803885)");

  EXPECT_EQ(s.planes[5].lines.size(), 122u);
  EXPECT_EQ(s.planes[5].event_count, 19270u);
  EXPECT_EQ(s.planes[5].top_events[0].name, "Scheduled TfrtTpuLoadedExecutable::Execute");
}

// paratune's own JAX run on one H100 (data/h100_1gpu/): three traced steps
// of a jitted training step that waits for each loss. The device's busy
// periods are the steps; their spacing is the wall clock the loop measured.
TEST(XspaceReader, GpuStepTimeAgreesWithTheMeasuredWallClock) {
  const auto s = read_xspace_file(fs::path(test::data_dir()) / "h100_1gpu" / "jax_step.xplane.pb.gz");
  const auto gpu = std::find_if(s.planes.begin(), s.planes.end(),
                                [](const auto& p) { return p.name == "/device:GPU:0"; });
  ASSERT_NE(gpu, s.planes.end());
  EXPECT_EQ(gpu->event_count, 2064u);
  ASSERT_EQ(gpu->busy_periods.size(), 3u);
  EXPECT_NEAR(gpu->busy_periods[0].event_ps / 1e9, 51.645, 0.001);  // ms of kernels
  EXPECT_NEAR((gpu->busy_periods[0].end_ps - gpu->busy_periods[0].start_ps) / 1e9, 51.703, 0.001);
  // Host planes carry no busy periods.
  for (const auto& p : s.planes) {
    if (!p.name.starts_with("/device:")) {
      EXPECT_TRUE(p.busy_periods.empty()) << p.name;
    }
  }
  // Steps 10-12 of jax_steps.json, timed around block_until_ready():
  // 57.56, 57.27 and 57.13 ms, median 57.27.
  std::ifstream in(fs::path(test::data_dir()) / "h100_1gpu" / "jax_steps.json");
  const auto steps = nlohmann::json::parse(in)["step_seconds"];
  std::vector<double> traced = {steps[10], steps[11], steps[12]};
  std::sort(traced.begin(), traced.end());
  const double wall = traced[1];
  const double step = xspace_step_time_s(*gpu);
  EXPECT_NEAR(step * 1e3, 57.227, 0.001);
  EXPECT_NEAR(step / wall, 1.0, 0.10);
  EXPECT_NEAR(step / wall, 1.0, 0.01);  // within 1% in fact
}

TEST(XspaceReader, RejectsTruncatedAndJunk) {
  std::string bytes;
  {
    std::ifstream in(xplane(), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // Cut inside the first plane: its length prefix runs past the end.
  EXPECT_THROW(parse_xspace(std::string_view(bytes).substr(0, 5000), "cut"), input_error);
  EXPECT_THROW(parse_xspace("", "empty"), input_error);
  EXPECT_THROW(parse_xspace("{\"traceEvents\": []}", "json"), input_error);
  std::string junk(4096, '\xff');
  EXPECT_THROW(parse_xspace(junk, "junk"), input_error);
  try {
    parse_xspace(std::string_view(bytes).substr(0, 5000), "cut.xplane.pb");
    ADD_FAILURE() << "a cut XSpace parsed";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cut.xplane.pb: not a valid XSpace protobuf (5000 bytes that libprotobuf does not "
              "parse as tensorflow.profiler.XSpace)");
  }
}

} // namespace
} // namespace paratune
