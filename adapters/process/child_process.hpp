#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

#include "adapters/process/process_environment.hpp"
#include "adapters/process/trial_process.hpp"

namespace paratune {

/// A child process started with fork and exec of an argv (never through a
/// shell), its stdout and stderr merged into one pipe that a reader thread
/// splits into lines. It leads a process group of its own (its pid is the
/// group's id) and is killed when the thread that started it dies.
class child_process final : public trial_process {
public:
  /// Called on the reader thread for every line (without the newline).
  using line_handler = std::function<void(const std::string& line)>;
  /// Called on the reader thread once, after the last line: the exit code,
  /// or 128 + signal number when the child was killed.
  using exit_handler = std::function<void(int status)>;

  /// Starts argv[0] (a path) with the arguments and exactly the
  /// environment `env` (a trial's, core/trial_environment.hpp); without
  /// one it inherits this process's (paratune-relay, which wraps a trial
  /// whose environment Slurm already chose). Throws std::system_error when
  /// the pipe or fork fails; an exec failure shows as exit status 127 with
  /// a line saying why.
  child_process(std::vector<std::string> argv, line_handler on_line, exit_handler on_exit,
                std::optional<process_env> env = std::nullopt);
  /// Kills the child if it still runs and joins the reader thread.
  ~child_process() override;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  pid_t pid() const { return pid_; }
  /// SIGTERM to its process group, then SIGKILL after `grace_ms`. Safe
  /// from any thread.
  void terminate(int grace_ms = 2000) override;
  bool finished() const override { return finished_; }

private:
  void read_loop(int fd);
  void signal_group(int sig);

  pid_t pid_ = -1;
  line_handler on_line_;
  exit_handler on_exit_;
  std::atomic<bool> finished_{false};
  std::thread reader_;
};

} // namespace paratune
