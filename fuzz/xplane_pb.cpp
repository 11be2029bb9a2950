// Fuzzes the raw XSpace reader (adapters/profile/xspace_reader.hpp, libprotobuf
// with paratune's schema) and what the diagnosis derives from it
// (xspace_profile.hpp). Bytes that are not a usable XSpace must throw
// input_error; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "adapters/profile/proto/xplane.pb.h"
#include "adapters/profile/xspace_profile.hpp"
#include "adapters/profile/xspace_reader.hpp"
#include "core/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    tensorflow::profiler::XSpace space;
    paratune::parse_xspace_message(bytes, "fuzz", space);
    (void)paratune::summarize_xspace(space, /*top_n=*/3);
    (void)paratune::profile_from_xspace(space, "fuzz", /*top_n=*/3);
  } catch (const paratune::input_error&) {
  }
  return 0;
}
