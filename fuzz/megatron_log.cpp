// Fuzzes the streaming Megatron-LM log parser (adapters/megatron).
//
// The parser's contract (megatron_log_parser.hpp): it never throws on
// content, and its result does not depend on how the bytes were chunked.
// The harness feeds the input twice, whole and in uneven pieces the input
// itself chooses, and traps when the two readings differ. It then renders
// the log the way `paratune` does (JSON and the text summary), since those
// walk every record the parser produced. Nothing is caught: any exception
// is a bug.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "adapters/megatron/megatron_log_json.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"
#include "adapters/megatron/megatron_log_summary.hpp"

#include <nlohmann/json.hpp>

namespace {

using paratune::megatron_log;
using paratune::megatron_log_parser;

/// Piece lengths 1..64, taken from the input's own bytes so that the fuzzer
/// can steer where a line is split (mid-"\r\n", mid-UTF-8, ...).
megatron_log read_in_pieces(std::string_view text) {
  megatron_log_parser parser;
  std::size_t at = 0, i = 0;
  while (at < text.size()) {
    const std::size_t piece = 1 + static_cast<unsigned char>(text[i++ % text.size()]) % 64;
    parser.feed(text.substr(at, piece));
    at += piece;
  }
  parser.finish();
  return parser.log();
}

megatron_log read_whole(std::string_view text) {
  megatron_log_parser parser;
  std::size_t records = 0;
  // The live callbacks must see exactly what the log keeps.
  parser.on_iteration = [&](const paratune::iteration_record&) { ++records; };
  parser.on_memory = [&](const paratune::memory_record&) { ++records; };
  parser.on_error = [&](const paratune::log_error&) { ++records; };
  parser.feed(text);
  parser.finish();
  const auto& log = parser.log();
  if (records != log.iterations.size() + log.memory.size() + log.errors.size())
    __builtin_trap();
  return log;
}

bool same_reading(const megatron_log& a, const megatron_log& b) {
  return a.lines == b.lines && a.partial == b.partial
      && a.iterations.size() == b.iterations.size() && a.memory.size() == b.memory.size()
      && a.errors.size() == b.errors.size() && a.args == b.args
      && a.timers.size() == b.timers.size() && a.validations.size() == b.validations.size()
      && a.markers.size() == b.markers.size() && a.parameters.size() == b.parameters.size()
      && a.num_microbatches == b.num_microbatches && a.exit_reason == b.exit_reason;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto whole = read_whole(text);
  const auto pieces = read_in_pieces(text);
  if (!same_reading(whole, pieces))
    __builtin_trap();  // the chunking changed the result

  for (const auto& r : whole.iterations) {
    (void)paratune::find_value(r, "lm loss");
    (void)paratune::find_number(r, "learning rate");
    (void)r.timestamp();
  }
  (void)paratune::to_json(whole).dump();
  std::ostringstream summary;
  paratune::write_summary(summary, whole);
  return 0;
}
