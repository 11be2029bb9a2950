#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace paratune {

/// A scheduler option whose value a job file gives as one word.
enum class slurm_word {
  account,     ///< --account: a name
  qos,         ///< --qos: a name
  constraint,  ///< --constraint: node features joined by & | , with [ ] * : ( )
  gres,        ///< --gres: name[:type][:count], commas between
};

const char* to_string(slurm_word w);

/// Why `value` cannot be given as `w`, in words, or nothing. Every allowed
/// value is at most 256 characters with no space, quote or control
/// character, so it stays one sbatch argument and one scontrol word.
std::optional<std::string> slurm_word_error(slurm_word w, std::string_view value);

} // namespace paratune
