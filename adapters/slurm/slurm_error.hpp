#pragma once

#include <string>
#include <string_view>

namespace paratune {

/// Why a call to a Slurm scheduler failed. Callers decide by the kind: a
/// pool that is `unreachable` is reported and tried again later, a
/// `refused` submission is a configuration mistake, `malformed` means the
/// scheduler answered something this client does not understand.
enum class slurm_failure {
  invalid_request,  ///< a value paratune would send is unusable; nothing was sent
  unreachable,      ///< the controller (or slurmrestd) cannot be reached: the pool is down
  unauthorized,     ///< reached, but the credentials were rejected
  refused,          ///< the scheduler rejected the request (unknown partition, limits)
  not_found,        ///< no such job (never existed, or forgotten after MinJobAge)
  malformed,        ///< the answer could not be understood
  command_failed,   ///< a client command or transfer failed in another way
};

std::string_view to_string(slurm_failure kind);

/// A failure with the scheduler's own words where it gave any (`message`
/// carries e.g. "Invalid partition name specified").
struct slurm_error {
  slurm_failure kind = slurm_failure::command_failed;
  std::string message;
};

} // namespace paratune
