#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <zmq.hpp>

#include "core/token_bucket.hpp"
#include "messages/control_request.hpp"

namespace paratune {

/// How long control requests took, for the daemon's metrics: counts per
/// operation and refusal, and a latency histogram (Prometheus buckets).
class control_stats {
public:
  static constexpr std::array<double, 10> bucket_s = {0.0005, 0.001, 0.002, 0.005, 0.01,
                                                      0.025,  0.05,  0.1,   0.5,   2.0};
  void record(const std::string& op, bool ok, double seconds);
  /// The series in Prometheus text format (paratune_control_*).
  std::string prometheus() const;

private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, bool>, uint64_t> requests_;
  std::array<uint64_t, bucket_s.size()> buckets_{};
  uint64_t count_ = 0;
  double sum_s_ = 0;
};

/// What one client may ask of the control endpoint. A client is its user
/// as the ZAP handler named it ("uid:1000", "key:...").
struct control_limits {
  /// A request is [identity][empty delimiter][payload] at most; a message
  /// of more frames, or of more bytes in all, is refused unread.
  size_t max_frames = 3;
  int64_t max_message_bytes = control::max_message_bytes;
  /// Requests of one user being answered or waiting at once, submits and
  /// reads each.
  size_t max_in_flight_per_user = 4;
  /// Submits waiting for the submit worker, from everyone together.
  size_t max_queued_submits = 16;
  /// Submits one user may make: this many a second, in bursts of `burst`.
  double submits_per_s = 50;
  double submit_burst = 200;
};

/// The daemon's control endpoint: a ZeroMQ ROUTER socket on a thread of its
/// own, which only reads, checks (check_request) and routes. Requests are
/// answered on worker threads, so that a slow one (a large job to parse)
/// never holds the socket: submits and asks (which write to the pool, an
/// ask perhaps after a model's answer) on a worker of their own, everything
/// else (health, list, status, cancel, history) on two others. Replies come
/// back to the socket thread over an inproc socket.
class control_server {
public:
  using handler = std::function<control::reply(const checked_request&)>;

  /// Binds `endpoint`; throws std::runtime_error naming it when it cannot.
  /// With `curve_secret_key` (Z85), only CURVE clients are heard, and their
  /// requests are encrypted. Every client passes the context's ZAP handler.
  control_server(zmq::context_t& ctx, const std::string& endpoint, handler h,
                 const std::string& curve_secret_key = {}, control_limits limits = {});
  /// Stops the threads (within one poll interval) and closes the sockets.
  ~control_server();
  control_server(const control_server&) = delete;
  control_server& operator=(const control_server&) = delete;

  /// The endpoint as bound (a port of * resolved).
  const std::string& bound() const { return bound_; }
  const control_stats& stats() const { return stats_; }

private:
  /// A checked request on its way to a worker, with how to route its reply.
  struct job {
    std::vector<zmq::message_t> route; ///< the routing frames, the delimiter included
    std::string slot;                  ///< its in-flight count: user and kind
    std::string user;
    checked_request request;
    std::chrono::steady_clock::time_point received;
  };
  /// Workers that answer jobs from one queue.
  struct lane {
    std::mutex mutex;
    std::condition_variable ready;
    std::deque<job> queue;
    std::vector<std::thread> workers;
  };

  void run();
  void take_request(std::vector<zmq::message_t> frames);
  void forward_reply();
  /// Sends `reply` to the client at `route` from the socket thread.
  void send_now(std::vector<zmq::message_t>& route, const control::reply& reply,
                const std::string& op, std::chrono::steady_clock::time_point received);
  void work(lane& l);
  /// The reply for one job (the handler's, or a refusal when it threw).
  control::reply answer(const job& j);

  zmq::context_t& ctx_;
  zmq::socket_t socket_;
  zmq::socket_t replies_; ///< PULL: workers' replies
  std::string replies_endpoint_;
  handler handler_;
  control_limits limits_;
  std::string bound_;
  control_stats stats_;
  std::map<std::string, size_t> in_flight_;          ///< by slot; socket thread only
  std::map<std::string, token_bucket> submit_rate_;  ///< socket thread only
  lane submits_, reads_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace paratune
