#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include <zmq.hpp>

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

/// The daemon's control endpoint: a ZeroMQ ROUTER socket on a thread of its
/// own. Each request (from a REQ or DEALER client) is checked
/// (check_request) and handed to the handler; its reply goes back to the
/// client that asked. Messages above control::max_message_bytes are
/// dropped by ZeroMQ before they are read.
class control_server {
public:
  using handler = std::function<control::reply(const checked_request&)>;

  /// Binds `endpoint`; throws std::runtime_error naming it when it cannot.
  /// With `curve_secret_key` (Z85), only CURVE clients that know the
  /// server's public key are heard, and their requests are encrypted.
  control_server(zmq::context_t& ctx, const std::string& endpoint, handler h,
                 const std::string& curve_secret_key = {});
  /// Stops the thread (within one poll interval) and closes the socket.
  ~control_server();
  control_server(const control_server&) = delete;
  control_server& operator=(const control_server&) = delete;

  /// The endpoint as bound (a port of * resolved).
  const std::string& bound() const { return bound_; }
  const control_stats& stats() const { return stats_; }

private:
  void run();
  /// Answers one request's bytes: the handler's reply, or a refusal.
  std::string answer(std::string_view bytes);

  zmq::socket_t socket_;
  handler handler_;
  std::string bound_;
  control_stats stats_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace paratune
