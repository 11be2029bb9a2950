// Fuzzes the Prometheus text parser and the dcgm-exporter mapping
// (core/telemetry), what the telemetry agent runs on every scrape.
//
// The parser's contract (prometheus_text.hpp): it never throws and never
// keeps more than its limits allow. The harness parses the input with the
// default limits and with tiny ones, checks the bounds and that line
// numbers only grow, and maps the samples to GPUs the way a scrape does.
// Nothing is caught: any exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/telemetry/dcgm_sample.hpp"
#include "core/telemetry/prometheus_text.hpp"

namespace {

void check(const paratune::prometheus_parse& p, const paratune::prometheus_limits& limits) {
  if (p.samples.size() > limits.max_samples || p.malformed.size() > limits.max_reported
      || p.malformed.size() > p.malformed_lines)
    __builtin_trap();
  std::size_t last = 0;
  for (const auto& s : p.samples) {
    if (s.line <= last || s.labels.size() > limits.max_labels || s.metric.empty())
      __builtin_trap();
    last = s.line;
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const paratune::prometheus_limits defaults;
  const auto whole = paratune::parse_prometheus_text(text, defaults);
  check(whole, defaults);
  for (const auto& g : paratune::dcgm_gpu_samples(whole))
    if (g.gpu < 0 || g.gpu > paratune::max_gpu_index)
      __builtin_trap();

  paratune::prometheus_limits tiny;
  tiny.max_bytes = 512;
  tiny.max_line_bytes = 96;
  tiny.max_samples = 4;
  tiny.max_labels = 3;
  tiny.max_reported = 2;
  check(paratune::parse_prometheus_text(text, tiny, paratune::dcgm_fields()), tiny);
  return 0;
}
