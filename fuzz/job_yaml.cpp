// Fuzzes the tuning-job loader (adapters/config/job_loader.hpp). load_job()
// reads a file, so the harness writes each input to a file of its own
// process first. Catalog names in the job (model: llama3-8b) resolve
// against the repository's configs/ (found above build-fuzz/bin/, or
// $PARATUNE_CONFIGS). The documented error is input_error; anything else
// is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "adapters/config/job_loader.hpp"
#include "core/input_error.hpp"

namespace {

/// One scratch file per process (runs in parallel must not share it),
/// removed at exit.
const std::string& scratch_path() {
  static const std::string path = [] {
    auto p = std::filesystem::temp_directory_path()
             / ("paratune-fuzz-job-" + std::to_string(::getpid()) + ".yaml");
    return p.string();
  }();
  static const struct remover {
    ~remover() { std::remove(scratch_path().c_str()); }
  } remove_at_exit;
  return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& path = scratch_path();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    (void)paratune::load_job(path);
  } catch (const paratune::input_error&) {
  }
  return 0;
}
