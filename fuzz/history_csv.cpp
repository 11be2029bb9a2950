// Fuzzes the tuning-history CSV reader (adapters/config/history_csv.hpp)
// through read_history_csv(), the stream reader load_history_csv() wraps,
// and the CSV line splitter on the first line alone. The documented error
// is input_error; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "adapters/config/history_csv.hpp"
#include "core/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)paratune::split_csv_line(text.substr(0, text.find('\n')));
  std::istringstream in(text);
  try {
    (void)paratune::read_history_csv(in, "fuzz.csv");
  } catch (const paratune::input_error&) {
  }
  return 0;
}
