// Fuzzes the Kineto (PyTorch profiler) Chrome-trace reader
// (adapters/profile/kineto_trace.hpp, kineto_scan.hpp): the simdjson scan
// and the per-step GPU time breakdown built on it. Gzip input is inflated
// first, as read_kineto_trace() does with a file, under a small cap so a
// decompression bomb costs the fuzzer nothing. The documented error is
// input_error; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "adapters/profile/gzip_file.hpp"
#include "adapters/profile/kineto_trace.hpp"
#include "core/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  std::string inflated;
  try {
    if (paratune::is_gzip(json)) {
      inflated = paratune::gunzip(json, "fuzz", /*max_bytes=*/std::size_t{16} << 20).data;
      json = inflated;
    }
    const auto trace = paratune::parse_kineto_trace(json, "fuzz", {.top_n = 5});
    (void)trace.gpu_busy_share();
    (void)trace.comm_kernel_share();
  } catch (const paratune::input_error&) {
  }
  return 0;
}
