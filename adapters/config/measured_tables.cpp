#include "adapters/config/measured_tables.hpp"

#include <filesystem>

#include "adapters/config/job_loader.hpp"
#include "core/input_error.hpp"
#include "core/replay/csv_lines.hpp"
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

namespace {

measured_landscape vtrain_landscape_for(const std::string& text, const std::string& path,
                                        const sweep_context& on) {
  const auto& m = on.model;
  for (auto& l : parse_vtrain_table(text, path))
    if (l.model.hidden == m.hidden && l.model.heads == m.heads && l.model.layers == m.layers
        && l.seq == on.base.seq && l.gpus == on.gpus && l.gbs == on.base.gbs)
      return std::move(l);
  throw input_error(path + ": no measured landscape for hidden " + std::to_string(m.hidden)
                    + ", heads " + std::to_string(m.heads) + ", layers "
                    + std::to_string(m.layers) + ", seq " + std::to_string(on.base.seq) + " on "
                    + std::to_string(on.gpus) + " GPUs at global batch "
                    + std::to_string(on.base.gbs));
}

} // namespace

measured_landscape load_replay_table(const std::string& path, const sweep_context& on) {
  const auto text = read_text_file(path);
  if (is_vtrain_header(split_measured_csv(text, path).header))
    return vtrain_landscape_for(text, path, on);
  return parse_sweep_table(text, path, on);
}

} // namespace paratune
