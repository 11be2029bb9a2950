// tools/screenshots, the script that makes the README's two screenshots:
// run as a user would, against this build, it writes both PNGs at the
// sizes it asks Chromium for.

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct png_size {
  uint32_t width = 0;
  uint32_t height = 0;
};

uint32_t big_endian_at(const std::string& bytes, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i)
    v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

/// A PNG's signature and its IHDR chunk's size; {0, 0} when it is not one.
png_size size_of_png(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string head(24, '\0');
  if (!in.read(head.data(), head.size()))
    return {};
  if (head.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || head.compare(12, 4, "IHDR") != 0)
    return {};
  return {big_endian_at(head, 16), big_endian_at(head, 20)};
}

TEST(dashboard_chromium_screenshots, the_script_writes_the_report_and_the_dashboard) {
  if (access("/usr/bin/chromium", X_OK) != 0)
    GTEST_SKIP() << "no /usr/bin/chromium";
  const auto out = fs::temp_directory_path() / ("paratune-shots-" + std::to_string(getpid()));
  fs::remove_all(out);
  const auto r = test::run_program({test::source_dir() + "/tools/screenshots", out.string()},
                             {{"PARATUNE_BIN", test::bin_dir().c_str()}});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto report = size_of_png(out / "report.png");
  const auto dashboard = size_of_png(out / "dashboard.png");
  EXPECT_EQ(report.width, 1280u);
  EXPECT_EQ(report.height, 2400u);
  EXPECT_EQ(dashboard.width, 1280u);
  EXPECT_EQ(dashboard.height, 2000u);
  // Both were written whole: a PNG ends with its IEND chunk.
  for (const auto* name : {"report.png", "dashboard.png"}) {
    std::ifstream in(out / name, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    ASSERT_GT(bytes.size(), 12u) << name;
    EXPECT_EQ(bytes.substr(bytes.size() - 8, 4), "IEND") << name;
  }
  fs::remove_all(out);
}

} // namespace
} // namespace paratune
