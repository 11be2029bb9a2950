#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paratune {

/// An environment as NAME, value pairs.
using env_list = std::vector<std::pair<std::string, std::string>>;

/// The variables a trial takes from paratune's own environment, whatever
/// the job says: PATH (to find the launcher), HOME (Python's user site and
/// the caches of torch and Hugging Face), USER and LOGNAME (who runs it,
/// for tools that ask), LANG, LC_ALL and every other LC_* (the text
/// encoding of Python's output), TZ (the log's timestamps) and TMPDIR
/// (scratch space). Nothing else: not TERM (no terminal reads the output,
/// and colour codes would reach the log parser), not LD_LIBRARY_PATH,
/// CUDA_VISIBLE_DEVICES or NCCL_* (a pool's `env:` names what its machines
/// need), and never a secret.
bool is_base_env_name(std::string_view name);

/// The variables the training framework needs, from the trial's
/// configuration; the one place they are added. PYTHONUNBUFFERED=1 always
/// (the output is a pipe, and Python would hold lines back in 8 KiB
/// blocks, so early stopping and hang detection would see them late);
/// CUDA_DEVICE_MAX_CONNECTIONS=1 with tensor or context parallelism
/// (Megatron-LM refuses to start without it there on GPUs before
/// Blackwell: its communication overlap relies on one kernel queue). A
/// simulated pool's trial (paratune-sim) also gets PARATUNE_CONFIGS and
/// PARATUNE_DATA from `inherited` when set: where its catalogs are.
env_list framework_environment(int tp, int cp, bool simulated, const env_list& inherited);

/// What a trial's environment is built from.
struct trial_env_sources {
  env_list inherited;                       ///< paratune's own environment
  std::map<std::string, std::string> pool;  ///< the pool's `env:`
  std::map<std::string, std::string> job;   ///< the job's `env:`
  env_list framework;                       ///< framework_environment()
  std::set<std::string> secrets;            ///< names never passed on
};

/// A trial's whole environment, sorted by name: the base variables of
/// `inherited`, then the pool's, the job's and the framework's, each
/// replacing the value before it; a secret's name is left out wherever it
/// comes from.
env_list trial_environment(const trial_env_sources& from);

/// Why an `env:` map cannot be used, or nothing: a name that is not a
/// POSIX environment variable name ([A-Za-z_][A-Za-z0-9_]*), a value with
/// a NUL byte, or a secret's name. `where` starts the message ("pools[0]:
/// field 'env'").
std::optional<std::string> env_map_error(const std::map<std::string, std::string>& env,
                                         const std::string& where,
                                         const std::set<std::string>& secrets);

} // namespace paratune
