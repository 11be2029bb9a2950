#include "adapters/config/executable_paths.hpp"

#include <cstdlib>

#include <gtest/gtest.h>

#include "core/input_error.hpp"
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
  if (!test::bin_dir_is_inside_source())
    GTEST_SKIP() << "the build tree is not inside the source tree";
  const auto configs = find_above_executable(
      "configs", [](const fs::path& d) { return fs::is_directory(d / "models"); });
  ASSERT_TRUE(configs);
  EXPECT_EQ(fs::canonical(*configs), fs::canonical(fs::path(test::source_dir()) / "configs"));
  EXPECT_FALSE(find_above_executable("no-such-dir", [](const fs::path& d) {
    return fs::exists(d);
  }));
}

// The message of the input_error that `find_data_dir(given)` throws.
std::string data_dir_error(const std::string& given) {
  try {
    find_data_dir(given);
  } catch (const input_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(executable_paths, find_data_dir_takes_a_given_dir_or_names_it) {
  EXPECT_EQ(find_data_dir(test::data_dir()), test::data_dir());
  EXPECT_NE(data_dir_error("/nonexistent/data").find("--data '/nonexistent/data'"),
            std::string::npos);
}

TEST(executable_paths, find_data_dir_takes_the_environment_then_the_checkout) {
  setenv("PARATUNE_DATA", test::data_dir().c_str(), 1);
  EXPECT_EQ(find_data_dir(), test::data_dir());
  setenv("PARATUNE_DATA", "/nonexistent/data", 1);
  EXPECT_NE(data_dir_error("").find("PARATUNE_DATA '/nonexistent/data'"), std::string::npos);
  unsetenv("PARATUNE_DATA");
  if (!test::bin_dir_is_inside_source())
    GTEST_SKIP() << "the build tree is not inside the source tree";
  EXPECT_EQ(fs::canonical(find_data_dir()), fs::canonical(test::data_dir()));
}

} // namespace
} // namespace paratune
