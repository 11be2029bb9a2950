#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "actors/agent_io.hpp"
#include "adapters/bus/zmq_bus.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

class bus_bridge;

struct runtime_options {
  std::string pool_dir;          ///< the Global Message Pool's RocksDB directory
  bus_endpoints bus;             ///< empty: a private inproc bus; port * for any free one
  bool host_proxy = true;        ///< bind the XSUB/XPUB proxy in this process
  bool sync_writes = false;      ///< fdatasync every pool write
};

/// One process's paratune runtime: the bus (proxy, bridge), the pool actor
/// and the four agents, started in dependency order and stopped in reverse.
/// Sessions are started on it; it serves any number of them.
class runtime {
public:
  /// Opens the pool and starts everything. Errors name what failed (a pool
  /// locked by another process, a bus endpoint in use).
  static caf::expected<std::unique_ptr<runtime>> start(caf::actor_system& sys,
                                                       runtime_options opts);
  ~runtime();

  /// Starts a session actor that tells `listener` (done_atom, id, state).
  caf::actor start_session(const std::string& id, wire::session_opened job,
                           const caf::actor& listener);

  /// Every record of a session, through the pool actor (blocking).
  caf::expected<std::vector<wire::envelope>> history(const std::string& session);

  bus_bridge& bridge() { return *bridge_; }
  /// The bus as bound (a wildcard tcp port resolved), for other processes.
  const bus_endpoints& bus() const { return bus_; }

  /// Takes an agent started outside start() (the diagnosis agents,
  /// actors/diagnosis_agents.hpp) so that stop() stops it with the others.
  void adopt_agent(caf::actor agent) { agents_.push_back(std::move(agent)); }
  agent_deps deps() const { return deps_; }

  /// Ordered shutdown, each step waiting for the last: sessions, agents,
  /// then the bus, then the pool. Idempotent.
  void stop();

private:
  explicit runtime(caf::actor_system& sys);

  caf::actor_system& sys_;
  std::unique_ptr<zmq::context_t> ctx_;
  bus_endpoints bus_;
  std::unique_ptr<bus_proxy> proxy_;
  std::unique_ptr<bus_bridge> bridge_;
  agent_deps deps_;
  std::vector<caf::actor> agents_;
  std::vector<caf::actor> sessions_;
  bool stopped_ = false;
};

/// A fresh session id: "s" + UTC time + random suffix.
std::string new_session_id();

} // namespace paratune
