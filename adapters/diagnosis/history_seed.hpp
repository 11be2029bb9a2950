#pragma once

#include <string>
#include <vector>

#include "core/diagnosis/past_optimization.hpp"

namespace paratune {

/// Past optimizations the team documented, from YAML files (a list under
/// `optimizations:`), used to seed the pool's history ledger. Throws
/// input_error naming the file and the record that is wrong.
std::vector<past_optimization> load_optimizations(const std::string& path);

/// Every *.yaml in `dir` (configs/optimizations), sorted by file name;
/// an absent directory gives none.
std::vector<past_optimization> load_optimizations_dir(const std::string& dir);

} // namespace paratune
