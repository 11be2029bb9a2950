#pragma once

#include <string>

#include "tests/fixtures/local_http_server.hpp"

namespace paratune::test {

/// tests/fixtures/xprof_server.py run as a child process on 127.0.0.1 and an
/// ephemeral port; killed when this object goes away.
class local_xprof_server : public local_http_server {
 public:
  /// Starts the server over `root` (one directory per run) in `mode`
  /// ("normal", "slow", "garbage", "error", "drop"). Throws std::runtime_error
  /// when python3 cannot be started or prints no port within 20 s.
  explicit local_xprof_server(const std::string& root, const std::string& mode = "normal",
                              double delay_s = 5.0)
      : local_http_server("xprof_server.py", {"--root", root, "--mode", mode, "--delay",
                                               std::to_string(delay_s)}) {}
};

} // namespace paratune::test
