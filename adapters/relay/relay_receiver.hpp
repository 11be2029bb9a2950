#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/relay/relay_sequencer.hpp"

namespace zmq {
class context_t;
}

namespace paratune {

class bus_subscriber;

struct relay_receiver_options {
  std::string bus_subscribe;  ///< the bus's subscriber side (XPUB), tcp://
  std::string topic;          ///< "relay.<session>.<trial>" (messages/topics.hpp)
  std::string log_path;       ///< the relay's log file, read once the relay no longer answers
  std::chrono::milliseconds fetch_timeout{500};
  relay_sequencer::limits limits;
};

/// What a receiver saw, for the logs and the tests.
struct relay_receiver_counts {
  uint64_t delivered = 0;
  uint64_t from_relay = 0;   ///< lines a fetch from the relay's buffer recovered
  uint64_t from_log = 0;     ///< lines recovered from its log file
  uint64_t gaps = 0;         ///< missing ranges it went to fetch
  uint64_t lost = 0;         ///< lines given up on at the end
  uint64_t bad = 0;          ///< messages that did not decode or contradicted the sequence
  uint64_t duplicates = 0;
  uint64_t refused = 0;      ///< numbers out of bounds (relay_sequencer)
  bool ended = false;        ///< the relay's end message arrived
};

/// paratune's side of one trial's relay (tools/paratune-relay): subscribes
/// to the trial's relay topic on the bus, hands its lines on in order and
/// exactly once, and fills every gap (a number that skips ahead, or a tail
/// the end message reveals) from the relay's buffer over its fetch socket,
/// or, when the relay does not answer (it exited), from its log file.
///
/// `on_line` is called on the subscriber's or the fetcher's thread, never
/// two at once, in order: the validator's callback forwards to its actor.
/// Fetches run on a thread of their own, so a relay slow to answer holds
/// up neither the bus nor the actor.
class relay_receiver {
public:
  using line_handler = std::function<void(const std::string& line)>;

  /// Subscribes; throws std::runtime_error when the bus cannot be reached.
  relay_receiver(relay_receiver_options o, line_handler on_line);
  ~relay_receiver();
  relay_receiver(const relay_receiver&) = delete;
  relay_receiver& operator=(const relay_receiver&) = delete;

  /// One payload published on the topic: decoded defensively (a payload
  /// that is not a relay message is counted in `bad` and dropped).
  void take(const std::string& payload);

  /// The trial's command has ended (its job finished): waits up to `wait`
  /// for the end message and the missing lines, then takes what is still
  /// missing from the log file and gives up on the rest (counted lost).
  /// Every line is delivered when it returns; later messages are ignored.
  void finish(std::chrono::milliseconds wait);

  relay_receiver_counts counts() const;

private:
  enum class source { bus, relay, log };
  /// Offers lines to the sequencer and delivers what became ready (lock held).
  void offer(std::vector<std::pair<uint64_t, std::string>> lines, source from);
  void fetch_loop();
  /// Fetches one missing range from the relay, else reads it from the log.
  void fill(seq_range hole);
  void read_log_from(uint64_t first);
  void stop_threads();

  relay_receiver_options options_;
  line_handler on_line_;
  mutable std::mutex mutex_;
  std::condition_variable wake_cv_;   ///< the fetcher: holes to fill, or stop
  std::condition_variable done_cv_;   ///< finish(): the sequence is complete
  relay_sequencer sequencer_;
  relay_receiver_counts counts_;
  std::string fetch_endpoint_;        ///< announced by the relay
  bool relay_gone_ = false;           ///< a fetch went unanswered
  bool wake_ = false;
  bool stopping_ = false;
  bool finished_ = false;
  std::unique_ptr<zmq::context_t> ctx_;
  std::unique_ptr<bus_subscriber> subscriber_;
  std::thread fetcher_;
};

} // namespace paratune
