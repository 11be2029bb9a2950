#pragma once

// Runs the built paratune executable as a child process and captures its
// exit status, stdout and stderr.

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

struct run_result {
  int status = -1;
  std::string out, err;
};

inline std::string paratune_exe() { return bin_dir() + "/paratune"; }

inline run_result run_paratune(const std::string& args) {
  const auto dir = make_temp_dir("paratune-cli");
  const std::string err_file = dir + "/stderr";
  run_result r;
  // Appended piecewise: GCC 12 warns (-Wrestrict, falsely) on "'" + string.
  std::string command = "'";
  command.append(paratune_exe()).append("' ").append(args);
  command.append(" 2>'").append(err_file).append("'");
  FILE* p = ::popen(command.c_str(), "r");
  if (!p)
    return r;
  std::array<char, 4096> buf{};
  while (const std::size_t n = std::fread(buf.data(), 1, buf.size(), p))
    r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  std::filesystem::remove_all(dir);
  return r;
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
