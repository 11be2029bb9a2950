#include "adapters/config/measured_tables.hpp"

#include <filesystem>

#include "adapters/config/job_loader.hpp"
#include "core/replay/vtrain_table.hpp"

namespace paratune {

std::vector<measured_landscape> load_vtrain_landscapes(const std::string& path) {
  return parse_vtrain_table(read_text_file(path), path);
}

std::vector<measured_landscape> load_vtrain_ground_truth(const std::string& data_dir) {
  std::vector<measured_landscape> all;
  for (const char* file : vtrain_table_files)
    merge_landscapes(all, load_vtrain_landscapes(
                              (std::filesystem::path(data_dir) / "perf" / file).string()));
  return all;
}

} // namespace paratune
