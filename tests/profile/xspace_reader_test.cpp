// The real XSpace in the corpus, walked without a protobuf library.
#include "adapters/profile/xprof_reader.hpp"
#include "adapters/profile/xspace_reader.hpp"
#include "core/input_error.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

TEST(XspaceReader, DirectoryWithOnlyXspaceIsPartialWithConverterHint) {
  auto dir = fs::path(test::make_temp_dir("xspace-only"));
  fs::copy_file(xplane(), dir / "host0.xplane.pb");
  auto p = read_xprof_dir(dir);
  EXPECT_TRUE(p.partial);
  ASSERT_EQ(p.xspace_planes.size(), 7u);
  EXPECT_EQ(p.xspace_planes[0], "/device:TPU:0");
  EXPECT_EQ(p.kpis.device_type, "TPU");
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings[0].find("xprof converter"), std::string::npos);
  EXPECT_TRUE(p.top_ops.empty());
  fs::remove_all(dir);
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
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("cut.xplane.pb"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("at byte"), std::string::npos);
  }
}

} // namespace
} // namespace paratune
