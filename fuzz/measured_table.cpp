// Fuzzes the measured-table readers a replay pool uses (core/replay):
// vTrain's ground-truth format and a team's own sweep, on the same text.
// The documented error is input_error; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/input_error.hpp"
#include "core/replay/sweep_table.hpp"
#include "core/replay/vtrain_table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)paratune::parse_vtrain_table(text, "fuzz.csv");
  } catch (const paratune::input_error&) {
  }
  static const paratune::sweep_context on{
      paratune::vtrain_model(1024, 16, 24, 1024), 8,
      paratune::parse_config("tp=4,pp=1,mbs=1,gbs=32,seq=1024,recompute=full")};
  try {
    (void)paratune::parse_sweep_table(text, "fuzz.csv", on);
  } catch (const paratune::input_error&) {
  }
  return 0;
}
