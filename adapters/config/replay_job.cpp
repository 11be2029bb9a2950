#include "adapters/config/replay_job.hpp"

#include <filesystem>

#include "adapters/config/executable_paths.hpp"
#include "adapters/config/measured_tables.hpp"
#include "core/input_error.hpp"

namespace paratune {

namespace {

// The keys a measured table varies, as a job writes them.
std::string short_text(const training_config& c) {
  std::string out;
  for (const char* key : {"tp", "pp", "cp", "mbs", "gbs", "seq", "recompute"})
    out += std::string(out.empty() ? "" : ", ") + key + " " + get_value(c, key);
  return out;
}

// A bare file name is one of the data directory's perf/ tables (the vTrain
// tables paratune ships); anything with a '/' is a path.
std::string table_path(const std::string& table) {
  if (table.find('/') != std::string::npos)
    return table;
  return (std::filesystem::path(find_data_dir()) / "perf" / table).string();
}

} // namespace

bool is_replay_job(const job_spec& job) {
  for (const auto& p : job.pools)
    if (p.kind == pool_kind::replay)
      return true;
  return false;
}

void read_replay_pools(job_spec& job, bool search_given, const std::string& where) {
  if (!is_replay_job(job))
    return;
  if (job.pools.size() > 1)
    throw input_error(where + ": pools: a replay pool must be the job's only pool (its "
                              "answers are past measurements, another pool's are new runs)");
  auto& pool = job.pools.front();
  const auto at = where + ": pools[0]: table '" + pool.table + "'";
  measured_landscape measured;
  try {
    measured = load_replay_table(table_path(pool.table), {job.model, job.world_size(), job.initial});
  } catch (const input_error& e) {
    throw input_error(where + ": pools[0]: " + e.what());
  }
  if (!measured.find(job.initial))
    throw input_error(where + ": initial: " + "{" + short_text(job.initial) + "}" + " on "
                      + std::to_string(job.world_size()) + " GPUs is not among the "
                      + std::to_string(measured.runs.size()) + " configurations measured in "
                      + pool.table + " (a replay pool can only answer those)");
  pool.measured = std::move(measured.runs);
  if (!search_given)
    job.search = measured_search_space(pool.measured);
}

} // namespace paratune
