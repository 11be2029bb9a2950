#pragma once

#include <atomic>
#include <string>
#include <thread>

#include <zmq.hpp>

#include "adapters/relay/relay_auth.hpp"

namespace paratune {

/// The one bus endpoint cluster nodes reach: trials' paratune-relay
/// processes publish their output lines here. It carries data, never
/// orders. A SUB socket bound where the relays connect takes every message;
/// only a relay line (topic relay.SID.TRIAL) signed with that trial's key
/// (relay_auth.hpp) is passed on, without its signature, to the agents' own
/// bus, which no other user can reach (a Unix socket in a private
/// directory). Anything else is dropped, counted and logged: a forged
/// proposal.SID or any other topic ("dropped"), and a relay line that is
/// unsigned or signed with another trial's key ("unauthenticated"). Relay
/// lines stay untrusted data for the receivers that read them.
class relay_ingress {
public:
  /// Binds `endpoint` and connects to the bus's publish side `bus_publish`;
  /// `master` is the secret the trials' keys derive from. Throws
  /// std::runtime_error naming the endpoint when it cannot bind.
  relay_ingress(zmq::context_t& ctx, const std::string& endpoint,
                const std::string& bus_publish, const relay_key& master);
  ~relay_ingress();
  relay_ingress(const relay_ingress&) = delete;
  relay_ingress& operator=(const relay_ingress&) = delete;

  /// The endpoint as bound (a port of * resolved).
  const std::string& bound() const { return bound_; }
  /// The counters in Prometheus text format.
  std::string prometheus() const;

private:
  enum class verdict { passed, dropped, unauthenticated };
  void run();
  /// What becomes of one message from a cluster node.
  verdict judge(const std::vector<zmq::message_t>& frames) const;
  void count(verdict v, const std::vector<zmq::message_t>& frames);

  zmq::socket_t in_;
  zmq::socket_t out_;
  std::string bound_;
  relay_key master_;
  std::atomic<uint64_t> passed_{0}, dropped_{0}, unauthenticated_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace paratune
