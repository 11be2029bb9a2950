// Fuzzes the inline model syntax of the catalog
// (adapters/config/catalog.hpp: "layers=96,hidden=12288,heads=96,..."),
// which `paratune` accepts wherever a model name goes. The documented error
// is input_error; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "adapters/config/catalog.hpp"
#include "core/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string dims(reinterpret_cast<const char*>(data), size);
  try {
    (void)paratune::parse_inline_model(dims);
  } catch (const paratune::input_error&) {
  }
  return 0;
}
