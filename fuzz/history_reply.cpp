// Fuzzes what a subscriber reads from the pool's owner
// (adapters/pool_feed/history_client.hpp): the input is one reply to a
// history request, decoded as history_client::fetch decodes it; a page that
// is accepted goes through a record_sequencer as record_feed would hand it.
// Decoding documents no exception (a failure is a value): any exception,
// crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "adapters/pool_feed/history_client.hpp"
#include "adapters/pool_feed/record_sequencer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace paratune;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto got = decode_history_reply(bytes, "s1", 0, "tcp://fuzz:1");
  if (!got.ok())
    return 0;
  record_sequencer sequencer;
  for (const auto& r : got.page.records)
    (void)sequencer.offer_recovered("telemetry.s1." + std::to_string(r.trial), r, 0);
  sequencer.covered("s1", 0, got.page.last_seq);
  return 0;
}
