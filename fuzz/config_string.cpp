// Fuzzes the training-configuration syntax (core/training_config.hpp:
// "tp=2,pp=1,mbs=1,..."), which job files, history tables and the command
// line all go through. A configuration that parses must print back
// (canonical_key, the pool's and the wire's form) to text that parses to the
// same configuration. The documented error is input_error; anything else is
// a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/input_error.hpp"
#include "core/training_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  paratune::training_config config;
  try {
    config = paratune::parse_config(text);
  } catch (const paratune::input_error&) {
    return 0;
  }
  const auto printed = paratune::canonical_key(config);
  if (paratune::canonical_key(paratune::parse_config(printed)) != printed)
    __builtin_trap();  // the printed form does not read back as itself
  return 0;
}
