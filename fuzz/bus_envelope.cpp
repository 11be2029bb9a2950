// Fuzzes the bus and pool codec (messages/codec.hpp): the msgpack envelope
// every message on the bus and every pool record travels in, then its typed
// body as the receiving agent decodes it (body_of<T> for the type the
// envelope names). The documented error is wire::decode_error; anything
// else is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "messages/codec.hpp"

namespace {

namespace wire = paratune::wire;

template <class T>
bool decode_as(const wire::envelope& e) {
  if (e.type != wire::type_name<T>())
    return false;
  (void)wire::body_of<T>(e);
  return true;
}

/// The body of every type in wire_types.hpp; an unknown type is left alone,
/// as the agents ignore it.
template <class... T>
void decode_body(const wire::envelope& e) {
  (void)(decode_as<T>(e) || ...);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const auto e = wire::decode_envelope(bytes);
    decode_body<wire::session_opened, wire::analysis_request, wire::analysis_report,
                wire::proposal, wire::trial_started, wire::telemetry, wire::trial_result,
                wire::failure_diagnosis, wire::session_status, wire::optimization_record,
                wire::diagnose_request, wire::diagnosis, wire::proposal_set>(e);
  } catch (const wire::decode_error&) {
  }
  return 0;
}
