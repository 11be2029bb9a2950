#pragma once

#include "adapters/profile/xprof_profile.hpp"
#include "adapters/profile/xprof_tools.hpp"

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace paratune {

/// A failed exchange with a profile server. `kind` says which way it failed
/// so callers can retry a timeout but not a 404.
struct xprof_http_error : std::runtime_error {
  enum class failure {
    unreachable,  ///< connection refused, host unknown, connect timeout
    timeout,      ///< connected, but the answer did not finish in time
    http_status,  ///< answered with a status other than 200
    malformed,    ///< answered 200 with something that is not the expected JSON
    too_large,    ///< the answer exceeded max_body_bytes
    transport,    ///< any other transfer failure (reset, TLS, bad encoding)
  };
  xprof_http_error(failure kind, long status, const std::string& message)
      : std::runtime_error(message), kind(kind), status(status) {}

  failure kind;
  long status;  ///< HTTP status when known, else 0
};

struct xprof_http_options {
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds total_timeout{60000};
  std::size_t max_body_bytes = std::size_t{1} << 30;
  /// Routes live here on TensorBoard; the standalone xprof server accepts
  /// both this and the bare form.
  std::string route_prefix = "/data/plugin/profile";
  bool verify_tls = true;
};

/// Reads tool data from a live xprof / TensorBoard profile server over HTTP(S):
/// /runs, /run_tools?run=, /hosts?run=&tag=, /data?run=&tag=&host=.
/// Each call is one blocking GET with the configured timeouts.
class xprof_http_client {
 public:
  /// `base_url` like "http://127.0.0.1:8791" (no trailing route).
  explicit xprof_http_client(std::string base_url, xprof_http_options options = {});

  /// Run names (profile sessions).
  std::vector<std::string> runs() const;
  /// Tools the server can compute for `run` (a trailing '^' is dropped).
  std::vector<std::string> tools(const std::string& run) const;
  /// Hosts for `run` and `tool`; accepts both ["h"] and [{"hostname":"h"}].
  std::vector<std::string> hosts(const std::string& run, const std::string& tool) const;
  /// The raw tool answer (decompressed when the server gzips it).
  std::string tool_data(const std::string& run, const std::string& tool,
                        const std::string& host) const;

  /// Fetches every tool this reader understands that `run` offers and builds
  /// a profile. `host` picks the host where a tool has several (empty: the
  /// first listed). A tool that fails makes the profile partial; when all
  /// fail, the first failure is thrown. Throws input_error when the run
  /// offers none of the known tools.
  xprof_profile fetch_profile(const std::string& run, const std::string& host = "",
                              const xprof_read_options& options = {}) const;

  const std::string& base_url() const { return base_url_; }

 private:
  std::string get(const std::string& route,
                  const std::vector<std::pair<std::string, std::string>>& query) const;
  std::vector<std::string> get_string_list(
      const std::string& route, const std::vector<std::pair<std::string, std::string>>& query,
      bool hostnames) const;

  std::string base_url_;
  xprof_http_options options_;
};

} // namespace paratune
