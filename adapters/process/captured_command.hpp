#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace paratune {

/// How run_captured runs one command.
struct captured_command_options {
  /// Fed to the command's standard input (through an unlinked file, so a
  /// command that never reads it cannot block the caller).
  std::string stdin_text;
  /// Set in the command's environment, replacing inherited values.
  std::vector<std::pair<std::string, std::string>> set_env;
  /// false: the command's environment is `set_env` and nothing else (a
  /// command that must not see this process's secrets, such as sbatch,
  /// which hands its environment to the job).
  bool inherit_env = true;
  /// Inherited variables whose names start with one of these are dropped
  /// (e.g. "SBATCH_": option defaults that would silently change a job).
  std::vector<std::string> drop_env_prefixes;
  /// The command and all it started are killed after this long.
  std::chrono::milliseconds timeout{60000};
  /// Output beyond this many bytes per stream is read and dropped.
  std::size_t max_output_bytes = std::size_t{1} << 20;
};

/// What a command left behind.
struct captured_command_result {
  enum class ending {
    exited,       ///< exited by itself; `exit_code` holds its status
    signalled,    ///< killed by a signal it did not expect; `exit_code` = 128 + signal
    timed_out,    ///< ran past the timeout and was killed
    not_started,  ///< fork, pipe or exec failed; `failure` says why
  };
  ending how = ending::not_started;
  int exit_code = -1;
  std::string out;      ///< standard output
  std::string err;      ///< standard error
  std::string failure;  ///< why it did not start
};

/// Runs argv synchronously: fork and exec (execvp: argv[0] may be a bare
/// name found on PATH), never through a shell, stdout and stderr captured
/// apart. The command gets its own process group, which the timeout kills
/// whole. Never throws for the command's failures; they are in the result.
captured_command_result run_captured(const std::vector<std::string>& argv,
                                     const captured_command_options& options = {});

} // namespace paratune
