#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "core/telemetry/dcgm_sample.hpp"

namespace paratune {

/// Why a scrape of a dcgm-exporter returned no samples.
enum class scrape_failure {
  unreachable,     ///< connection refused, host unknown, connect timed out
  timeout,         ///< connected, but the answer did not finish in time
  http_status,     ///< answered with a status other than 200
  too_large,       ///< the body passed max_body_bytes
  not_prometheus,  ///< 200, but no line of it is Prometheus text
  transport,       ///< any other transfer failure (reset, TLS)
};

const char* to_string(scrape_failure f);

struct scrape_error {
  scrape_failure kind = scrape_failure::transport;
  long status = 0;       ///< HTTP status when there was one
  std::string message;   ///< names the URL and what failed
};

/// What one scrape read.
struct dcgm_scrape {
  std::vector<dcgm_gpu_sample> gpus;
  std::size_t series = 0;           ///< well-formed sample lines of the fields paratune reads
  std::size_t malformed_lines = 0;  ///< lines skipped as not Prometheus text
};

struct dcgm_scrape_options {
  std::chrono::milliseconds connect_timeout{1000};
  std::chrono::milliseconds total_timeout{2000};
  /// dcgm-exporter's answer for a node of 8 GPUs is some 100 KiB.
  std::size_t max_body_bytes = std::size_t{8} << 20;
};

/// A scrape's samples, or the error saying why there are none.
using dcgm_scrape_result = std::variant<dcgm_scrape, scrape_error>;

/// GETs `url` (http or https, e.g. "http://node:9400/metrics") once, with
/// the options' timeouts, and reads its GPUs. Blocks for at most
/// total_timeout; never throws for what the server does.
dcgm_scrape_result scrape_dcgm(const std::string& url, const dcgm_scrape_options& options = {});

} // namespace paratune
