#pragma once

// Runs the built paratune executable as a child process and captures its
// exit status, stdout and stderr.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

using run_result = program_result;

inline std::string paratune_exe() { return bin_dir() + "/paratune"; }

/// Runs `paratune ARGS` (ARGS as a shell would split it).
inline run_result run_paratune(const std::string& args) {
  std::string command = "'";
  command.append(paratune_exe()).append("' ").append(args);
  return run_shell(command);
}

/// Skips the test when the executable was not built (it links the whole
/// project; the logic is tested without it in model_validation_test and
/// tests/core/space_planner_test).
class paratune_cli : public ::testing::Test {
protected:
  void SetUp() override {
    if (!std::filesystem::exists(paratune_exe()))
      GTEST_SKIP() << "paratune executable not built in " << bin_dir();
  }
};

} // namespace paratune::test
