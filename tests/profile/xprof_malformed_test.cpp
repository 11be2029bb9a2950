// Broken Xprof inputs give a clear input_error or a partial profile, never a crash.
#include "adapters/profile/gzip_file.hpp"
#include "adapters/profile/xprof_reader.hpp"
#include "adapters/profile/xprof_tools.hpp"
#include "core/input_error.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace paratune {
namespace {

namespace fs = std::filesystem;

fs::path malformed_corpus() { return fs::path(test::data_dir()) / "xprof"; }

class XprofMalformed : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::make_temp_dir("xprof-malformed"); }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& bytes) {
    fs::path p = fs::path(dir_) / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::string corpus_text(const std::string& name) {
    return read_maybe_gzip(malformed_corpus() / name).data;
  }
  std::string message_of(const fs::path& p, const std::string& tool) {
    try {
      read_xprof_files({{"", tool, p}});
    } catch (const input_error& e) {
      return e.what();
    }
    return "";
  }

  std::string dir_;
};

TEST_F(XprofMalformed, TruncatedJsonNamesTheFile) {
  std::string text = corpus_text("golden_tpu-training.overview_page.json");
  auto p = write("h.overview_page.json", text.substr(0, text.size() / 2));
  std::string msg = message_of(p, "overview_page");
  EXPECT_NE(msg.find("h.overview_page.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed JSON"), std::string::npos) << msg;
}

TEST_F(XprofMalformed, BrokenGzipNamesTheFile) {
  std::string gz = read_whole_file(malformed_corpus() / "golden_tpu-training.op_profile.json.gz");
  auto truncated = write("t.op_profile.json.gz", gz.substr(0, gz.size() / 3));
  EXPECT_NE(message_of(truncated, "op_profile").find("truncated"), std::string::npos);
  for (std::size_t i = 50; i < 200; ++i)
    gz[i] = static_cast<char>(~gz[i]);
  auto corrupt = write("c.op_profile.json.gz", gz);
  EXPECT_NE(message_of(corrupt, "op_profile").find("c.op_profile.json.gz"), std::string::npos);
}

TEST_F(XprofMalformed, BinaryJunkAndWrongShapes) {
  std::string junk;
  for (int i = 0; i < 4096; ++i)
    junk.push_back(static_cast<char>((i * 131) & 0xff));
  EXPECT_FALSE(message_of(write("j.roofline_model.json", junk), "roofline_model").empty());
  EXPECT_FALSE(message_of(write("n.hlo_stats.json", "42"), "hlo_stats").empty());
  EXPECT_FALSE(message_of(write("o.op_profile.json", "{\"foo\": 1}"), "op_profile").empty());
  EXPECT_FALSE(message_of(write("e.overview_page.json", ""), "overview_page").empty());
  // A DataTable whose rows are not arrays, cells with odd types: no crash.
  EXPECT_FALSE(
      message_of(write("r.roofline_model.json", R"({"cols":[{"id":"bound_by"}],"rows":{}})"),
                 "roofline_model")
          .empty());
  auto odd = write("odd.hlo_stats.json",
                   R"({"cols":[{"id":"hlo_op_name"},{"id":"total_self_time_percent"}],
                       "rows":[{"c":[{"v":[1,2]},{"v":"12.5"}]},{"c":null},{"c":[null]},7]})");
  auto p = read_xprof_files({{"", "hlo_stats", odd}});
  ASSERT_EQ(p.hlo_ops.size(), 4u);
  EXPECT_DOUBLE_EQ(p.hlo_ops[0].time_share, 0.125);
}

TEST_F(XprofMalformed, OneBadFileMakesDirectoryPartial) {
  write("h.overview_page.json", corpus_text("golden_tpu-training.overview_page.json"));
  write("h.op_profile.json", "{\"byProgram\": {\"children\": [");
  auto p = read_xprof_dir(dir_);
  EXPECT_TRUE(p.partial);
  EXPECT_DOUBLE_EQ(*p.kpis.step_time_avg_ms, 96.3);
  ASSERT_FALSE(p.warnings.empty());
  EXPECT_NE(p.warnings.back().find("h.op_profile.json"), std::string::npos);
}

TEST_F(XprofMalformed, EmptyOrMissingDirectory) {
  EXPECT_THROW(read_xprof_dir(dir_), input_error);
  EXPECT_THROW(read_xprof_dir(fs::path(dir_) / "missing"), input_error);
  write("h.xplane.pb", "not a protobuf at all");
  EXPECT_THROW(read_xprof_dir(dir_), input_error);
}

TEST_F(XprofMalformed, DeepNestingIsBounded) {
  std::string deep;
  for (int i = 0; i < 200; ++i)
    deep += R"({"name":"n","metrics":{"rawTime":1},"children":[)";
  deep += "{}";
  for (int i = 0; i < 200; ++i)
    deep += "]}";
  auto p = read_xprof_files({{"", "op_profile", write("d.op_profile.json",
                                                       "{\"byProgram\":" + deep + "}")}});
  EXPECT_TRUE(p.top_ops.empty());
}

// fuzz/xprof_json.cpp found this: a number beyond a double's range made
// nlohmann throw out_of_range 406, which escaped as a non-input_error.
TEST_F(XprofMalformed, NumberOverflowIsMalformedJson) {
  xprof_accumulator acc;
  EXPECT_THROW(apply_xprof_tool("input_pipeline_analyzer", "44e444", acc, "overflow"),
               input_error);
  EXPECT_THROW(read_xprof_files({{"", "overview_page",
                                  write("o.overview_page.json", R"({"p": {"x": 1e999}})")}}),
               input_error);
}

} // namespace
} // namespace paratune
