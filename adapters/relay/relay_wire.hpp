#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paratune {

// What paratune-relay (tools/paratune-relay) and the receiver in paratune's
// process (relay_receiver) say to each other. Every body is a msgpack map
// keyed by field name, so a reader skips fields a newer writer added. The
// receiver's side is untrusted input: decoding checks every type and size
// and answers nullopt rather than throwing or allocating beyond the limits.

/// The topic of a trial's relay: "relay.<session>.<trial>" (as
/// messages/topics.hpp's topics::relay, which the relay cannot link).
inline std::string relay_topic(const std::string& session, int trial) {
  return "relay." + session + "." + std::to_string(trial);
}

/// The longest line a relay sends; longer output lines are cut to it.
inline constexpr size_t max_relay_line = 64 * 1024;
/// The longest endpoint a relay may announce.
inline constexpr size_t max_relay_endpoint = 256;
/// The most lines and bytes of text in one fetch reply.
inline constexpr size_t max_fetch_lines = 1000;
inline constexpr size_t max_fetch_bytes = 4 * 1024 * 1024;

/// What a relay publishes on "relay.<session>.<trial>".
enum class relay_kind {
  line,  ///< one output line and its number (1, 2, 3 ...)
  end,   ///< the command ended: the last line's number (0: no line) and its exit status
};

struct relay_message {
  relay_kind kind = relay_kind::line;
  uint64_t seq = 0;
  std::string line;    ///< line only
  int exit_code = 0;   ///< end only
  std::string fetch;   ///< the relay's re-send socket ("tcp://host:port"), in every message
};

std::string encode(const relay_message& m);
/// A line with a number of 0, a negative or non-integer number, a line over
/// max_relay_line, an endpoint that is not tcp:// or over max_relay_endpoint,
/// an unknown kind or anything that is not such a map: nullopt.
std::optional<relay_message> decode_relay_message(std::string_view payload);

/// A receiver asks the relay for lines `first`..`last` again.
struct fetch_request {
  uint64_t first = 0;
  uint64_t last = 0;
};

std::string encode(const fetch_request& r);
/// nullopt unless first and last are positive integers with first <= last.
std::optional<fetch_request> decode_fetch_request(std::string_view payload);

/// The lines of a fetch the relay still held (its buffer is bounded; the
/// rest are in its log file), and the last number it has given out.
struct fetch_reply {
  std::vector<std::pair<uint64_t, std::string>> lines;
  uint64_t last_seq = 0;
};

std::string encode(const fetch_reply& r);
/// nullopt for more than max_fetch_lines lines, a line over max_relay_line,
/// a number of 0 or anything malformed.
std::optional<fetch_reply> decode_fetch_reply(std::string_view payload);

} // namespace paratune
