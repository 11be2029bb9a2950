#include "adapters/slurm/slurm_job.hpp"

#include <set>
#include <utility>

#include "core/slurm_word.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

bool has_control_char(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f)
      return true;
  return false;
}

slurm_error bad(const std::string& why) { return {slurm_failure::invalid_request, why}; }

// Slurm's default limit on a batch script (max_script_size, 4 MB).
constexpr std::size_t max_script_bytes = 4u << 20;

} // namespace

namespace {

/// The scheduler options given as words (core/slurm_word.hpp).
std::optional<slurm_error> scheduler_word_error(const slurm_job_request& job) {
  for (const auto& [word, value] : {std::pair{slurm_word::account, &job.account},
                                    std::pair{slurm_word::qos, &job.qos},
                                    std::pair{slurm_word::constraint, &job.constraint},
                                    std::pair{slurm_word::gres, &job.gres}})
    if (!value->empty())
      if (auto why = slurm_word_error(word, *value))
        return bad(std::string(to_string(word)) + ": " + *why);
  return std::nullopt;
}

} // namespace

std::optional<slurm_error> check_request(const slurm_job_request& job) {
  if (job.name.empty() || job.name.size() > 200 || has_control_char(job.name))
    return bad("job name must be 1 to 200 characters without control characters");
  if (job.partition.empty() || job.partition.size() > 64)
    return bad("partition must be 1 to 64 characters");
  if (!is_plain_name(job.partition, 64))
    return bad("partition '" + job.partition + "' may hold only letters, digits, '_', '-', '.'");
  if (job.nodes < 1 || job.nodes > 100000)
    return bad("nodes must be between 1 and 100000, not " + std::to_string(job.nodes));
  if (job.gpus_per_node < 0 || job.gpus_per_node > 1024)
    return bad("gpus per node must be between 0 and 1024, not "
               + std::to_string(job.gpus_per_node));
  if (job.time_limit_minutes < 0 || job.time_limit_minutes > 366 * 24 * 60)
    return bad("time limit must be between 0 (the partition's) and 527040 minutes");
  if (job.tasks_per_node < 0 || job.tasks_per_node > 4096)
    return bad("tasks per node must be between 0 and 4096, not "
               + std::to_string(job.tasks_per_node));
  if (auto e = scheduler_word_error(job))
    return e;
  if (job.working_directory.empty() || job.working_directory[0] != '/'
      || has_control_char(job.working_directory))
    return bad("working directory must be an absolute path without control characters");
  if (!job.output_path.empty()
      && (job.output_path[0] != '/' || has_control_char(job.output_path)))
    return bad("output path must be an absolute path without control characters");
  std::set<std::string> seen;
  for (const auto& [name, value] : job.environment) {
    if (!is_identifier(name))
      return bad("environment variable name '" + name + "' is not an identifier");
    // SLURM_* are Slurm's to set; SBATCH_* would be read by sbatch as options.
    if (name.rfind("SLURM_", 0) == 0 || name.rfind("SBATCH_", 0) == 0)
      return bad("environment variable " + name + " is reserved for Slurm");
    if (!seen.insert(name).second)
      return bad("environment variable " + name + " is given twice");
    if (value.find('\0') != std::string::npos)
      return bad("environment variable " + name + " holds a NUL byte");
  }
  if (job.script.rfind("#!", 0) != 0)
    return bad("batch script must start with '#!' (Slurm refuses others)");
  if (job.script.size() > max_script_bytes || job.script.find('\0') != std::string::npos)
    return bad("batch script must be text of at most 4 MiB");
  return std::nullopt;
}

} // namespace paratune
