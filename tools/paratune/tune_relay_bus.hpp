#pragma once

#include <memory>
#include <string>

#include <zmq.hpp>

#include "adapters/bus/zmq_bus.hpp"
#include "adapters/relay/relay_auth.hpp"
#include "adapters/relay/relay_ingress.hpp"

namespace paratune::cli {

/// The buses of a `tune` whose trials run under paratune-relay on other
/// machines, laid out as a daemon's are (docs/security.md): the agents'
/// own bus on Unix sockets in a private directory (0700, made for this run
/// and removed after it), and a relay ingress, the one endpoint the nodes
/// reach, that passes on only lines signed with their trial's key. The
/// keys derive from a master made for this run alone.
class tune_relay_bus {
public:
  /// Makes the private directory under $TMPDIR (else /tmp); throws
  /// std::runtime_error naming it when it cannot.
  tune_relay_bus();
  ~tune_relay_bus();
  tune_relay_bus(const tune_relay_bus&) = delete;
  tune_relay_bus& operator=(const tune_relay_bus&) = delete;

  /// Where the agents' bus binds: ipc:// sockets in the private directory.
  bus_endpoints agents() const;
  const relay_key& master() const { return master_; }
  /// Binds the ingress at `endpoint` (a pool's relay_bind) in front of the
  /// agents' bus at `bus_publish`; throws std::runtime_error naming it.
  void open_ingress(const std::string& endpoint, const std::string& bus_publish);
  /// The ingress as bound (a port of * resolved).
  const std::string& ingress() const { return ingress_->bound(); }

private:
  std::string dir_;
  relay_key master_;
  zmq::context_t ctx_;
  std::unique_ptr<relay_ingress> ingress_;
};

} // namespace paratune::cli
