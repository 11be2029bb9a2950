#include "messages/codec.hpp"

namespace paratune::wire {

envelope decode_envelope(std::string_view bytes) {
  auto e = unpack<envelope>(bytes, "envelope");
  if (e.v < 1 || e.v > schema_version)
    throw decode_error("envelope schema version " + std::to_string(e.v)
                       + " is not supported (this build reads 1.."
                       + std::to_string(schema_version) + ")");
  if (e.type.empty())
    throw decode_error("envelope has no type");
  return e;
}

} // namespace paratune::wire
