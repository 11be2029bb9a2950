#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <caf/actor.hpp>
#include <caf/expected.hpp>
#include <caf/fwd.hpp>
#include <zmq.hpp>

#include "actors/runtime.hpp"
#include "adapters/relay/relay_ingress.hpp"
#include "daemon/control_server.hpp"
#include "daemon/daemon_config.hpp"
#include "daemon/session_index.hpp"
#include "daemon/zap_handler.hpp"

namespace paratune {

/// The long-lived tuning service (`paratune daemon`): one runtime (pool,
/// bus on TCP, agents) hosting any number of sessions, and the control
/// endpoint clients submit, list, cancel and read sessions through.
///
/// The pool is the truth. A submitted session's first record is stored
/// (fdatasync with sync_writes) before its id is answered, and a session
/// starts by replaying the pool. So a daemon that starts after any end of
/// the last one, kill -9 included, resumes every session that had not
/// ended: its answered steps are not repeated, and what was in flight is
/// asked for again (tuning_session's recover, the validator's attach to a
/// Slurm job that still runs, or its rerun of a local trial that died).
class tuning_daemon {
public:
  /// Opens the state directory's pool, binds the bus and the control
  /// endpoint, and resumes the sessions that had not ended. Errors name
  /// what failed (a pool locked by a running daemon, an endpoint in use, a
  /// state directory others may write to).
  ///
  /// The control endpoint hears only whom the ZAP handler lets in: on the
  /// Unix socket (mode 0600, or 0666 with control_users) the daemon's own
  /// uid and control_users, checked with the kernel's SO_PEERCRED; over TCP
  /// the CURVE clients listed in authorized_keys.
  static caf::expected<std::unique_ptr<tuning_daemon>> start(caf::actor_system& sys,
                                                             daemon_config cfg);
  ~tuning_daemon();

  /// Answers one checked control request (on the control server's
  /// workers, several at once).
  control::reply handle(const checked_request& r);

  /// The daemon's metrics in Prometheus text format.
  std::string metrics();
  /// Health as JSON: {"status":"ok", "uptime_s":..., "sessions":...}.
  std::string health_json();

  const std::string& control_endpoint() const { return server_->bound(); }
  const bus_endpoints& bus() const { return rt_->bus(); }
  /// Where trials' relays publish (the relay ingress, as bound).
  const std::string& relay_endpoint() const { return ingress_->bound(); }
  std::shared_ptr<const message_pool> pool() const { return rt_->pool(); }
  /// The dashboard's address once it listens (health and list report it).
  void serving_http(const std::string& address);
  /// The sessions resumed at start.
  int resumed() const { return resumed_; }

  /// Ordered shutdown: the control endpoint, then the runtime (sessions,
  /// agents with Slurm jobs left running, the bus, the pool). Idempotent.
  void stop();

  /// A session ended (its listener's message).
  void ended(const std::string& id, session_state state, const std::string& text);

private:
  explicit tuning_daemon(caf::actor_system& sys, daemon_config cfg);

  control::reply health();
  /// The ports health and list report: the relay ingress, the dashboard.
  void add_ports(control::reply& r);
  control::reply submit(const control::request& r);
  control::reply list();
  control::reply status(const std::string& id);
  control::reply cancel(const std::string& id);
  control::reply history(const control::request& r);
  /// Answers a question about a session and stores the turn (as `paratune
  /// ask` does on a pool directory): a running daemon holds its pool.
  control::reply ask(const control::request& r);
  /// Starts (or continues) the session the pool holds under `id`.
  caf::expected<void> run_session(const std::string& id);
  /// A TPU experiment: its record stored, its session started.
  control::reply submit_tpu(const control::request& req, const std::string& label);
  /// Starts (or resumes) the TPU session `id` from its first record.
  caf::expected<void> run_tpu_session(const std::string& id, const wire::tpu_session_opened& r,
                                      bool resume);
  caf::expected<void> resume_unfinished();
  int active_count();

  caf::actor_system& sys_;
  daemon_config cfg_;
  std::unique_ptr<runtime> rt_;
  std::mutex index_mutex_; ///< control workers and HTTP threads read the index at once
  session_index index_;
  zmq::context_t ctx_{1};
  std::unique_ptr<relay_ingress> ingress_;
  std::unique_ptr<zap_handler> zap_; ///< before server_: no client is heard unchecked
  std::unique_ptr<control_server> server_;
  session_listener_actor listener_;
  std::mutex sessions_mutex_;
  std::mutex http_mutex_;
  std::string http_address_; ///< guarded by http_mutex_
  std::map<std::string, session_actor> active_;
  bool diagnosis_agents_ = false; ///< started with the first TPU session
  std::chrono::steady_clock::time_point started_;
  int resumed_ = 0;
  bool stopped_ = false;
};

} // namespace paratune
