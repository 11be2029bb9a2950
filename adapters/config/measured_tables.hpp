#pragma once

#include <string>
#include <vector>

#include "core/replay/measured_landscape.hpp"

namespace paratune {

/// The vTrain ground-truth tables paratune ships, in data/perf/.
inline constexpr const char* vtrain_table_files[] = {"vtrain_ground_truth_single_a100.csv",
                                                     "vtrain_ground_truth_multi_a100.csv"};

/// Reads one vTrain table file into landscapes (core/replay/vtrain_table).
/// Throws input_error naming the path (it cannot be read) or its line.
std::vector<measured_landscape> load_vtrain_landscapes(const std::string& path);

/// Both vTrain tables of `data_dir` (the checkout's data/, or
/// $PARATUNE_DATA): the 148 landscapes of 1,549 measured iterations.
std::vector<measured_landscape> load_vtrain_ground_truth(const std::string& data_dir);

} // namespace paratune
