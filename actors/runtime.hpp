#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <caf/actor_control_block.hpp>
#include <caf/expected.hpp>
#include <caf/fwd.hpp>

#include "actors/agent.hpp"
#include "actors/pool_read_log.hpp"
#include "adapters/bus/zmq_bus.hpp"
#include "adapters/relay/relay_auth.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

class bus_bridge;
class message_pool;

struct runtime_options {
  std::string pool_dir;          ///< the Global Message Pool's RocksDB directory
  bus_endpoints bus;             ///< empty: a private inproc bus; port * for any free one
  bool host_proxy = true;        ///< bind the XSUB/XPUB proxy in this process
  bool sync_writes = false;      ///< fdatasync every pool write
  /// How long stop() lets each group of actors finish before killing it.
  std::chrono::milliseconds grace{5000};
  /// How often a session replays the pool without a bus gap to prompt it.
  std::chrono::milliseconds session_tick{500};
  /// Start OptiCo's four agents and the telemetry agent (GPU tuning). `diagnose` and the TPU loop
  /// use the diagnosis agents alone (actors/diagnosis_agents.hpp).
  bool tuning_agents = true;
  /// stop() leaves Slurm jobs running for the next start to attach to (a
  /// daemon), instead of cancelling them (`paratune tune`).
  bool keep_jobs_on_stop = false;
  /// The secret relayed trials' keys derive from; the relay ingress in
  /// front of this bus holds the same (validator_options::relay_master).
  std::optional<relay_key> relay_master = std::nullopt;
  /// How many sessions' analyses may run at once (the bottleneck analyst's
  /// workers); 0: one per core.
  int analysis_workers = 0;
  /// When set, the pool actor counts every session read by reader (tests
  /// check that the agents read incrementally).
  std::shared_ptr<pool_read_log> pool_reads = nullptr;
};

/// One process's paratune runtime: the bus (proxy, bridge), the pool actor
/// and the tuning agents, started in dependency order and stopped in reverse.
/// Sessions are started on it; it serves any number of them. A watchdog
/// monitors every actor it starts (actors/watchdog.hpp).
class runtime {
public:
  /// Opens the pool and starts everything. Errors name what failed (a pool
  /// locked by another process, a bus endpoint in use).
  static caf::expected<std::unique_ptr<runtime>> start(caf::actor_system& sys,
                                                       runtime_options opts);
  ~runtime();

  /// Starts a GPU tuning session that tells `listener` (done_atom, id,
  /// session_state, text) when it ends (actors/tuning_session.hpp).
  tuning_session_actor start_session(const std::string& id, wire::session_opened job,
                                     const session_listener_actor& listener);
  /// Continues a session the pool holds and that never ended (a daemon
  /// restarting): its state is replayed from the pool, and what was in
  /// flight is asked for again.
  tuning_session_actor resume_session(const std::string& id, wire::session_opened job,
                                      const session_listener_actor& listener);

  /// Takes a session actor started elsewhere (the TPU loop) so that the
  /// watchdog tells it of agent deaths and stop() stops it first.
  void adopt_session(const session_actor& session);

  /// Every record of a session, through the pool actor (blocking).
  caf::expected<std::vector<wire::envelope>> history(const std::string& session);
  /// Stores one record through the pool actor, the pool's one writer, and
  /// waits until it is stored (blocking); its sequence number.
  caf::expected<uint64_t> append(wire::envelope e);
  /// A session id that no session of the pool has and that this runtime
  /// has not handed out before. The random part of an id is 16 bits, so
  /// two submits within one second share an id about once in 65,536 pairs
  /// (a daemon taking 50 at once: once in 50 bursts), and two sessions
  /// under one id would write one history. Thread-safe: the daemon's
  /// control lanes submit concurrently.
  caf::expected<std::string> claim_session_id();
  /// Whether `id` was claimed here or names a session the pool holds.
  caf::expected<bool> session_id_in_use(const std::string& id);
  /// The pool for reading from any thread (RocksDB reads are thread-safe);
  /// every write goes through the pool actor.
  std::shared_ptr<const message_pool> pool() const { return pool_; }

  bus_bridge& bridge() { return *bridge_; }
  /// The bus as bound (a wildcard tcp port resolved), for other processes.
  const bus_endpoints& bus() const { return bus_; }

  /// Takes an agent started outside start() (the diagnosis agents,
  /// actors/diagnosis_agents.hpp) so that the watchdog monitors it and
  /// stop() stops it with the others.
  template <class Handle>
  void adopt_agent(const Handle& agent, const std::string& name) {
    adopt_agent(caf::actor_cast<caf::strong_actor_ptr>(agent), name);
  }
  /// Held as a handle no message can be sent through: the runtime only
  /// monitors and stops its agents.
  void adopt_agent(caf::strong_actor_ptr agent, const std::string& name);
  agent_deps deps() const { return deps_; }

  /// Ordered shutdown, each step waiting for the last: sessions, agents,
  /// then the bus, then the pool. Each group gets the grace period to end,
  /// then whatever still runs is killed. Idempotent.
  void stop();

private:
  explicit runtime(caf::actor_system& sys);

  void stop_group(std::vector<caf::strong_actor_ptr>& actors);
  /// Spawns and subscribes OptiCo's agents, then waits until their topics
  /// reach the bus, so that a session's first request is not lost.
  caf::expected<void> start_tuning_agents();
  /// session_id_in_use, with ids_mutex_ held.
  caf::expected<bool> id_in_use(const std::string& id) const;

  caf::actor_system& sys_;
  std::chrono::milliseconds grace_;
  std::chrono::milliseconds session_tick_;
  bool keep_jobs_ = false;
  std::optional<relay_key> relay_master_;
  int analysis_workers_ = 0;
  watchdog_actor watchdog_;
  std::unique_ptr<zmq::context_t> ctx_;
  bus_endpoints bus_;
  std::unique_ptr<bus_proxy> proxy_;
  std::unique_ptr<bus_bridge> bridge_;
  agent_deps deps_;
  std::shared_ptr<message_pool> pool_;
  std::vector<caf::strong_actor_ptr> agents_;
  std::vector<caf::strong_actor_ptr> sessions_;
  std::mutex ids_mutex_;
  std::set<std::string> claimed_ids_; ///< handed out, stored or not yet
  bool stopped_ = false;
};

/// A session id drawn afresh: "s" + UTC time to the second + "-" + four
/// random hex digits, drawn again while `taken` says the id is in use.
std::string new_session_id(const std::function<bool(const std::string&)>& taken);

} // namespace paratune
