#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
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

/// The XSUB/XPUB forwarder on its own thread, stopped through a control
/// socket (zmq::proxy_steerable "TERMINATE").
class bus_proxy {
public:
  /// Binds both sides; throws zmq::error_t when an endpoint is taken.
  bus_proxy(zmq::context_t& ctx, const bus_endpoints& ep);
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

/// A PUB socket. Not thread-safe: exactly one thread (the egress actor)
/// uses it after construction.
class bus_publisher {
public:
  bus_publisher(zmq::context_t& ctx, const bus_endpoints& ep);
  /// Sends topic | payload | per-publisher sequence (8 bytes, big-endian),
  /// so subscribers can see gaps. Drops silently at the high-water mark,
  /// as PUB does: the pool is the source of truth.
  void publish(const std::string& topic, const std::string& payload);

private:
  zmq::socket_t socket_;
  uint64_t seq_ = 0;
};

/// A SUB socket owned by one poller thread. Handlers are registered from any
/// thread and called on the poller thread for every message whose topic
/// starts with their prefix.
class bus_subscriber {
public:
  using handler = std::function<void(const std::string& topic, const std::string& payload)>;

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

  /// Messages dropped because a handler threw or the frames were malformed.
  uint64_t dropped() const { return dropped_; }

private:
  struct entry {
    int id;
    std::string prefix;
    handler h;
  };
  void run(zmq::context_t& ctx, bus_endpoints ep);
  void apply_pending(zmq::socket_t& sub);
  void dispatch(const std::string& topic, const std::string& payload);

  std::mutex mutex_;
  std::vector<entry> entries_;
  std::vector<std::pair<bool, std::string>> pending_; ///< (subscribe?, prefix)
  int next_id_ = 1;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<bool> started_{false};
  std::thread thread_;
};

} // namespace paratune
