#pragma once

#include <string>

namespace paratune::test {

/// A recorded scheduler answer from tests/fixtures/slurm/.
std::string slurm_fixture(const std::string& name);

/// A recorded slurmrestd answer: the body and the HTTP status that
/// capture.sh wrote after it as a last line "HTTP <status>".
struct recorded_http {
  long status = 0;
  std::string body;
};
recorded_http slurm_http_fixture(const std::string& name);

} // namespace paratune::test
