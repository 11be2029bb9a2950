#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adapters/process/child_process.hpp"
#include "daemon/control_client.hpp"

namespace paratune::test {

/// How a daemon_process is run, when not as the tests' usual one.
struct daemon_launch {
  /// `paratune daemon --state DIR` and nothing else: every default, as a
  /// user who follows the README starts it.
  bool state_only = false;
  /// Put before the executable: `/usr/bin/env VAR=...`, `setpriv ...`.
  std::vector<std::string> wrapper;
  /// The paratune to run; empty for bin_dir()/paratune.
  std::string executable;
};

/// A real `paratune daemon` run as a child process on ports the kernel
/// picks, for tests that stop it, kill it and start it again.
class daemon_process {
public:
  /// Starts it on `state_dir` and waits for its "paratune daemon: control
  /// ..." line; `extra` goes on its command line.
  daemon_process(const std::string& state_dir, std::vector<std::string> extra = {},
                 daemon_launch how = {});
  ~daemon_process();

  /// Whether it printed where it listens (it started).
  bool up() const { return !control_.empty(); }
  const std::string& control() const { return control_; }
  const std::string& http() const { return http_; }
  /// The relay ingress its first line names.
  const std::string& relay() const { return relay_; }
  /// Everything it printed so far.
  std::string output() const;

  /// SIGKILL, and waits until it is gone: nothing of it runs a handler.
  void kill9();
  /// SIGTERM, and its exit status (128 + signal when it was killed).
  int stop(std::chrono::seconds wait = std::chrono::seconds(30));

  /// One request to its control endpoint.
  control::reply call(control::request r);

private:
  void on_line(const std::string& line);
  bool wait_exit(std::chrono::seconds wait);

  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
  std::string control_, http_, relay_;
  int exit_status_ = -1;
  std::unique_ptr<child_process> process_;
  std::unique_ptr<control_client> client_;
};

/// A request with its operation set.
control::request request_of(control::control_op op, const std::string& session = {});

} // namespace paratune::test
