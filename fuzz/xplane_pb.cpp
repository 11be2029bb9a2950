// Fuzzes the raw XSpace reader (adapters/profile/xspace_reader.hpp), which
// walks the protobuf wire format of `*.xplane.pb` by hand. Bytes that are
// not a well-formed XSpace must throw input_error; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "adapters/profile/xspace_reader.hpp"
#include "core/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    (void)paratune::parse_xspace(bytes, "fuzz", /*top_n=*/3);
  } catch (const paratune::input_error&) {
  }
  return 0;
}
