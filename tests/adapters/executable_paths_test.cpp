#include "adapters/config/executable_paths.hpp"

#include <cstdlib>

#include <gtest/gtest.h>

#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

// The test binaries are built into the same bin/ as paratune and its simulators.
TEST(executable_paths, finds_the_programs_beside_the_running_one) {
  EXPECT_EQ(fs::canonical(executable_dir()), fs::canonical(test::bin_dir()));
  unsetenv("PARATUNE_TEST_SIM");
  EXPECT_EQ(fs::path(sibling_executable("paratune-sim", "PARATUNE_TEST_SIM")),
            executable_dir() / "paratune-sim");
  setenv("PARATUNE_TEST_SIM", "/opt/sim", 1);
  EXPECT_EQ(sibling_executable("paratune-sim", "PARATUNE_TEST_SIM"), "/opt/sim");
  setenv("PARATUNE_TEST_SIM", "", 1);  // empty counts as unset
  EXPECT_EQ(fs::path(sibling_executable("paratune-sim", "PARATUNE_TEST_SIM")),
            executable_dir() / "paratune-sim");
}

TEST(executable_paths, walks_up_to_the_source_tree) {
  const auto source = fs::canonical(test::source_dir()).string() + "/";
  if (!fs::canonical(test::bin_dir()).string().starts_with(source))
    GTEST_SKIP() << "the build tree is not inside the source tree";
  const auto configs = find_above_executable(
      "configs", [](const fs::path& d) { return fs::is_directory(d / "models"); });
  ASSERT_TRUE(configs);
  EXPECT_EQ(fs::canonical(*configs), fs::canonical(fs::path(test::source_dir()) / "configs"));
  EXPECT_FALSE(find_above_executable("no-such-dir", [](const fs::path& d) {
    return fs::exists(d);
  }));
}

} // namespace
} // namespace paratune
