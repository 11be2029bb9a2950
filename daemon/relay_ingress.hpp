#pragma once

#include <atomic>
#include <string>
#include <thread>

#include <zmq.hpp>

namespace paratune {

/// The one bus endpoint cluster nodes reach: trials' paratune-relay
/// processes publish their output lines here. It carries data, never
/// orders. A SUB socket bound where the relays connect takes every message;
/// only relay lines (topic relay.SID.TRIAL) are passed on to the daemon's
/// own bus, which no other user can reach (a Unix socket in the state
/// directory). Anything else (a forged proposal.SID, a validation, a
/// session's record) is dropped, counted and logged. Relay lines stay
/// untrusted data for the receivers that read them.
class relay_ingress {
public:
  /// Binds `endpoint` and connects to the bus's publish side `bus_publish`;
  /// throws std::runtime_error naming the endpoint when it cannot bind.
  relay_ingress(zmq::context_t& ctx, const std::string& endpoint,
                const std::string& bus_publish);
  ~relay_ingress();
  relay_ingress(const relay_ingress&) = delete;
  relay_ingress& operator=(const relay_ingress&) = delete;

  /// The endpoint as bound (a port of * resolved).
  const std::string& bound() const { return bound_; }
  /// The two counters in Prometheus text format.
  std::string prometheus() const;

private:
  void run();

  zmq::socket_t in_;
  zmq::socket_t out_;
  std::string bound_;
  std::atomic<uint64_t> passed_{0}, refused_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace paratune
