#pragma once

#include <string>
#include <sys/types.h>

namespace paratune::test {

/// tests/fixtures/xprof_server.py run as a child process on 127.0.0.1 and an
/// ephemeral port; killed when this object goes away.
class local_xprof_server {
 public:
  /// Starts the server over `root` (one directory per run) in `mode`
  /// ("normal", "slow", "garbage", "error", "drop"). Throws std::runtime_error
  /// when python3 cannot be started or prints no port within 20 s.
  explicit local_xprof_server(const std::string& root, const std::string& mode = "normal",
                              double delay_s = 5.0);
  ~local_xprof_server();
  local_xprof_server(const local_xprof_server&) = delete;
  local_xprof_server& operator=(const local_xprof_server&) = delete;

  int port() const { return port_; }
  /// "http://127.0.0.1:PORT"
  std::string url() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

/// A loopback port with nothing listening on it (bound, then released).
int unused_loopback_port();

} // namespace paratune::test
