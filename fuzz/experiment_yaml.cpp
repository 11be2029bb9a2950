// Fuzzes the diagnosis experiment loader
// (adapters/diagnosis/experiment_loader.hpp) through parse_experiment(),
// the in-memory step load_experiment() wraps. Catalog names resolve against
// the repository's configs/. The documented error is input_error; anything
// else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)paratune::parse_experiment(text, "fuzz.yaml");
  } catch (const paratune::input_error&) {
  }
  return 0;
}
