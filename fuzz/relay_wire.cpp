// Fuzzes what paratune reads from a trial's relay (adapters/relay/relay_wire.hpp):
// the input is one payload, decoded as a published relay message, a fetch
// request and a fetch reply; what decodes goes through a relay_sequencer
// (core/relay), as the receiver would hand it. Decoding documents no
// exception (nullopt for bad input): any exception, crash or sanitizer
// report is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/relay/relay_wire.hpp"
#include "core/relay/relay_sequencer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paratune;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  relay_sequencer sequencer({.max_held = 64, .max_ahead = 1000});
  std::vector<std::string> ready;
  if (const auto m = decode_relay_message(bytes)) {
    if (m->kind == relay_kind::end)
      sequencer.end(m->seq);
    else
      sequencer.offer(m->seq, m->line, ready);
  }
  (void)decode_fetch_request(bytes);
  if (auto reply = decode_fetch_reply(bytes)) {
    for (auto& [seq, line] : reply->lines)
      sequencer.offer(seq, std::move(line), ready);
    (void)sequencer.missing();
    sequencer.skip_missing(ready);
  }
  return 0;
}
