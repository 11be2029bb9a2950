#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <zmq.hpp>

namespace paratune {

/// Where the two sides of the bus proxy live. inproc for one process (the
/// one-shot `tune`), tcp://127.0.0.1:PORT when a daemon hosts the bus. A
/// port of `*` lets the kernel choose; bus_proxy::bound() tells which.
struct bus_endpoints {
  std::string publish;    ///< XSUB side: publishers connect here
  std::string subscribe;  ///< XPUB side: subscribers connect here

  static bus_endpoints inproc(const std::string& name);
};

/// The ZMQ_SNDHWM and ZMQ_RCVHWM of the bus's sockets, in messages: past
/// it a publisher drops (subscribers see the gap by number).
constexpr int default_high_water_mark = 100000;

/// The XSUB/XPUB forwarder on its own thread, stopped through a control
/// socket (zmq::proxy_steerable "TERMINATE").
class bus_proxy {
public:
  /// Binds both sides; throws zmq::error_t when an endpoint is taken.
  /// `high_water_mark` bounds both sides' queues (a test of recovery makes
  /// it small so that the proxy drops).
  bus_proxy(zmq::context_t& ctx, const bus_endpoints& ep,
            int high_water_mark = default_high_water_mark);
  ~bus_proxy();
  bus_proxy(const bus_proxy&) = delete;
  /// The endpoints as bound: a tcp wildcard port replaced by the real one,
  /// so that publishers and subscribers can connect to it.
  const bus_endpoints& bound() const { return bound_; }
  bus_proxy& operator=(const bus_proxy&) = delete;

private:
  zmq::context_t& ctx_;
  std::string control_endpoint_;
  bus_endpoints bound_;
  zmq::socket_t xsub_;
  zmq::socket_t xpub_;
  std::thread thread_;
};

/// The third frame of every bus message: who sent it, and its number among
/// that publisher's messages on that topic (1, 2, ...). Numbering per topic
/// lets a subscriber that takes only some topics still see every gap.
struct bus_sequence {
  uint64_t publisher = 0;
  uint64_t seq = 0;

  static constexpr size_t size = 16; ///< two big-endian 64-bit integers
  std::string encode() const;
  /// The same bytes without an allocation.
  std::array<char, size> encode_fixed() const;
  /// False when `frame` is not 16 bytes or names publisher 0.
  static bool decode(std::string_view frame, bus_sequence& out);
};

/// A PUB socket. Not thread-safe: exactly one thread (the egress actor)
/// uses it after construction.
class bus_publisher {
public:
  /// `sees_subscriptions`: an XPUB socket instead of a PUB, which also reads
  /// the subscriptions coming up the bus (await_subscriber). A process that
  /// publishes to one receiver from afar (paratune-relay) waits this way
  /// rather than lose its first messages to the slow joiner.
  bus_publisher(zmq::context_t& ctx, const bus_endpoints& ep, bool sees_subscriptions = false,
                int high_water_mark = default_high_water_mark);
  /// Sends topic | payload | bus_sequence. Drops at the high-water mark, as
  /// PUB does: subscribers see the gap, and the pool is the source of truth.
  /// Allocates nothing of its own once the topic was seen (telemetry is
  /// published at hundreds of thousands of messages a second).
  void publish(std::string_view topic, std::string_view payload);

  uint64_t id() const { return id_; }

  /// Computes a fourth frame from a message's three (topic, payload,
  /// bus_sequence): its authentication code.
  using frame_signer =
      std::function<std::string(std::string_view, std::string_view, std::string_view)>;
  /// From now on every message carries `sign`'s frame after its sequence.
  /// paratune-relay signs its lines so that the relay ingress can tell them
  /// from forgeries (adapters/relay/relay_auth.hpp); a bus subscriber takes
  /// only three-frame messages, so a signed message goes to an ingress.
  void sign_with(frame_signer sign) { signer_ = std::move(sign); }

  /// Waits until some subscriber's prefix takes `topic` (its subscription
  /// reached this publisher, so what is published now reaches it). False
  /// after `timeout`, and always for a publisher that does not see
  /// subscriptions.
  bool await_subscriber(const std::string& topic, std::chrono::milliseconds timeout);

private:
  /// Reads the subscription messages waiting (XPUB) into prefixes_.
  void read_subscriptions();
  bool takes(const std::string& topic) const;

  bool sees_subscriptions_ = false;
  std::set<std::string> prefixes_;            ///< subscriptions seen, when it sees them
  zmq::socket_t socket_;
  uint64_t id_;                               ///< random, new for every publisher
  std::map<std::string, uint64_t, std::less<>> next_seq_;  ///< per topic
  frame_signer signer_;                        ///< empty: three frames
};

/// A SUB socket owned by one poller thread. Handlers are registered from any
/// thread and called on the poller thread for every message whose topic
/// starts with their prefix.
///
/// It reads every message's bus_sequence and keeps the last number seen per
/// publisher and topic. A number that skips ahead is a gap: messages were
/// lost (a high-water mark, a reconnect). Gaps are counted per publisher and
/// reported to the gap handler, which asks for a replay from the pool. A
/// topic first seen past number 1 was joined late, which is not a gap. A
/// message with no valid sequence frame is not from a paratune publisher: it
/// is dropped and counted.
class bus_subscriber {
public:
  using handler = std::function<void(const std::string& topic, const std::string& payload)>;
  using gap_handler = std::function<void(const std::string& topic, uint64_t missed)>;

  /// Connects on the poller thread; throws std::runtime_error naming the
  /// endpoint when the connect fails.
  bus_subscriber(zmq::context_t& ctx, const bus_endpoints& ep);
  ~bus_subscriber();
  bus_subscriber(const bus_subscriber&) = delete;
  bus_subscriber& operator=(const bus_subscriber&) = delete;

  /// Registers `h` for `prefix`; the poller applies ZMQ_SUBSCRIBE within
  /// one poll interval. Returns an id for unsubscribe().
  int subscribe(const std::string& prefix, handler h);
  void unsubscribe(int id);

  /// Publishes hello messages through `pub` until this subscriber sees one:
  /// ZeroMQ drops what is sent before a subscription has propagated (the
  /// slow-joiner problem). False after `timeout`.
  bool await_connected(bus_publisher& pub, std::chrono::milliseconds timeout);

  /// Called on the poller thread for every gap (set before messages flow).
  void on_gap(gap_handler h);

  /// Stops the poller thread and waits for it: no handler runs after this
  /// returns. Idempotent; the destructor calls it.
  void stop();

  /// Messages dropped because a handler threw or the frames were malformed.
  uint64_t dropped() const { return dropped_; }
  /// Messages delivered to the handlers (a daemon's bus rate).
  uint64_t received() const { return received_; }
  /// Gaps seen, and messages they lost, over all publishers.
  uint64_t gaps() const { return gaps_; }
  uint64_t missed() const { return missed_; }
  /// Gaps seen per publisher id.
  std::map<uint64_t, uint64_t> gaps_by_publisher() const;

private:
  struct entry {
    int id;
    std::string prefix;
    handler h;
  };
  void run(zmq::context_t& ctx, bus_endpoints ep, std::promise<std::string>& connected);
  void apply_pending(zmq::socket_t& sub);
  void dispatch(const std::string& topic, const std::string& payload);
  /// Checks a message's number against the last one seen on its topic.
  void check_sequence(const std::string& topic, const bus_sequence& s);

  mutable std::mutex mutex_;
  std::vector<entry> entries_;
  std::vector<std::pair<bool, std::string>> pending_; ///< (subscribe?, prefix)
  int next_id_ = 1;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> received_{0};
  std::atomic<uint64_t> gaps_{0};
  std::atomic<uint64_t> missed_{0};
  gap_handler gap_handler_;
  std::map<std::pair<uint64_t, std::string>, uint64_t> last_seq_; ///< poller thread only
  std::map<uint64_t, uint64_t> gaps_by_publisher_;                 ///< under mutex_
  std::thread thread_;
};

} // namespace paratune
