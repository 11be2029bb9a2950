#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <zmq.hpp>

#include "adapters/pool_feed/history_client.hpp"
#include "adapters/pool_feed/record_sequencer.hpp"

namespace paratune {

/// What a record_feed did so far.
struct feed_counts {
  uint64_t messages = 0;     ///< bus messages read
  uint64_t live = 0;         ///< records delivered from the bus
  uint64_t recovered = 0;    ///< records delivered from the pool
  uint64_t duplicates = 0;   ///< records dropped: delivered already, or of a topic a recovery's
                             ///< read did not cover from that topic's own last delivery
  uint64_t recoveries = 0;   ///< holes (a bus number skipped, an unknown past) read from the pool
  uint64_t malformed = 0;    ///< bus messages without a sequence frame or envelope
  uint64_t failed = 0;       ///< recoveries the pool's owner did not answer
};

/// A subscriber in another process than the pool: bus messages over TCP
/// (topic | envelope | bus_sequence) turned into every pool record of its
/// topics, once each and in order per topic. A hole shows as a skipped bus
/// number (or a topic whose past is unknown), and is filled from the pool's
/// owner through the control protocol's `history` before the message that
/// revealed it is delivered. The caller's thread does everything: poll()
/// reads the SUB socket, recovers, and calls the sink.
class record_feed {
public:
  using sink_fn = std::function<void(std::string_view topic, const wire::envelope& record)>;
  /// The topic a pool record travels on (telemetry.<sid>.<n> for telemetry).
  using topic_fn = std::function<std::string(const wire::envelope& record)>;

  struct options {
    std::vector<std::string> prefixes;            ///< topics taken, by prefix
    int receive_hwm = 100000;                     ///< the SUB socket's ZMQ_RCVHWM
    std::chrono::milliseconds history_timeout{2000};
    uint32_t page = 0;                            ///< records per history page (0: the cap)
    int attempts = 3;                             ///< history requests per hole before giving up
    /// A hole is read from its session's floor (every stream at once) when
    /// the floor is at most this many pool numbers below the stream.
    uint64_t floor_reach = control::max_history_records;
  };

  /// Connects a SUB socket to `bus_subscribe` and a history client to
  /// `control`. Throws zmq::error_t when an endpoint does not parse.
  record_feed(zmq::context_t& ctx, const std::string& bus_subscribe, const std::string& control,
              topic_fn topic_of, options opts);

  /// Reads the messages waiting, waiting at most `wait` for the first, and
  /// hands each new record to `sink`. Returns how many bus messages it read.
  size_t poll(std::chrono::milliseconds wait, const sink_fn& sink);

  /// Reads the session's pool history from what is known delivered to its
  /// end and delivers what never arrived: the end of a stream that was lost
  /// has no next message to reveal it. Returns the error when the pool's
  /// owner could not be asked.
  std::optional<history_error> catch_up(const std::string& session, const sink_fn& sink);

  const feed_counts& counts() const { return counts_; }
  /// The last failed history request, if any.
  const std::optional<history_error>& last_error() const { return last_error_; }

private:
  void take(std::string_view topic, const bus_sequence& number, const wire::envelope& e,
            const sink_fn& sink);
  /// Delivers the session's records above `after` and below `until` from
  /// the pool. False when the pool's owner could not be asked.
  bool recover(const std::string& session, uint64_t after, uint64_t until, const sink_fn& sink);
  /// Whether `topic` is one this feed subscribed to: the pool's history of
  /// a session holds all its records, of every topic.
  bool takes(std::string_view topic) const;

  zmq::socket_t socket_;
  history_client history_;
  topic_fn topic_of_;
  options opts_;
  record_sequencer sequencer_;
  feed_counts counts_;
  std::optional<history_error> last_error_;
  zmq::message_t topic_frame_, body_frame_, number_frame_;
};

} // namespace paratune
