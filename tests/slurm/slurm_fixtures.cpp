#include "tests/slurm/slurm_fixtures.hpp"

#include "tests/fixtures/test_paths.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace paratune::test {

std::string slurm_fixture(const std::string& name) {
  std::string path = source_dir() + "/tests/fixtures/slurm/" + name;
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("missing fixture " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

recorded_http slurm_http_fixture(const std::string& name) {
  std::string text = slurm_fixture(name);
  auto at = text.rfind("\nHTTP ");
  if (at == std::string::npos)
    throw std::runtime_error("fixture " + name + " has no HTTP status line");
  return {std::stol(text.substr(at + 6)), text.substr(0, at)};
}

} // namespace paratune::test
