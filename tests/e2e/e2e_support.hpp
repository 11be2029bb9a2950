#pragma once

#include <string>
#include <vector>

namespace paratune::test {

/// Runs a program (argv[0] a path) to completion, capturing stdout and
/// stderr separately. Real fork/exec, no shell.
struct program_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

program_result run_program(const std::vector<std::string>& argv);

/// Writes `text` to `dir/name` and returns the path.
std::string write_file(const std::string& dir, const std::string& name, const std::string& text);

} // namespace paratune::test
