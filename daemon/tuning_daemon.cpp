#include "daemon/tuning_daemon.hpp"

#include <filesystem>
#include <set>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "actors/bus_bridge.hpp"
#include "actors/diagnosis_agents.hpp"
#include "actors/tpu_session.hpp"
#include "adapters/config/catalog.hpp"
#include "adapters/config/executable_paths.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "adapters/diagnosis/tpu_tuning_loader.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/config/private_dir.hpp"
#include "core/input_error.hpp"
#include "core/secret_env.hpp"
#include "core/trial_environment.hpp"
#include "daemon/curve_keys.hpp"
#include "daemon/endpoints_file.hpp"
#include "daemon/session_dialogue.hpp"
#include "session_start/session_plan.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "messages/ec.hpp"
#include "messages/type_ids.hpp"
#include "paratune_version.hpp"
#include "storage/history_service.hpp"
#include "storage/message_pool.hpp"

namespace paratune {

namespace {

control::reply accepted() {
  control::reply r;
  r.ok = true;
  return r;
}

/// Tells the daemon of each session's end.
session_listener_actor::behavior_type session_listener(session_listener_actor::pointer,
                                                       tuning_daemon* daemon) {
  return {
    [=](done_atom, const std::string& id, session_state state, const std::string& text) {
      daemon->ended(id, state, text);
    },
  };
}

/// The Unix socket's mode: the owner's alone, unless control_users asks
/// for others (whose uid the ZAP handler then checks).
void restrict_control_socket(const std::string& bound, bool shared) {
  if (bound.rfind("ipc://", 0) == 0)
    ::chmod(bound.substr(6).c_str(), shared ? 0666 : 0600);
}

control_access_source access_source_of(const daemon_config& c) {
  const auto ids = control_user_ids(c);
  return {uint32_t(::geteuid()), {ids.begin(), ids.end()}, c.authorized_keys};
}

} // namespace

tuning_daemon::tuning_daemon(caf::actor_system& sys, daemon_config cfg)
  : sys_(sys), cfg_(std::move(cfg)), started_(std::chrono::steady_clock::now()) {
}

tuning_daemon::~tuning_daemon() {
  stop();
}

caf::expected<std::unique_ptr<tuning_daemon>> tuning_daemon::start(caf::actor_system& sys,
                                                                   daemon_config cfg) {
  std::unique_ptr<tuning_daemon> d{new tuning_daemon(sys, std::move(cfg))};
  const auto& c = d->cfg_;
  // Others who may write to it could replace the control socket: refused.
  try {
    if (const auto warning = prepare_private_dir(c.state_dir, "state"); !warning.empty())
      spdlog::warn("daemon: {}", warning);
  } catch (const input_error& e) {
    return caf::make_error(ec::bad_input, e.what());
  }
  runtime_options opts;
  opts.pool_dir = c.state_dir + "/pool";
  opts.bus = {bus_publish_of(c), bus_subscribe_of(c)};
  opts.sync_writes = c.sync_writes;
  opts.grace = std::chrono::seconds(c.grace_s);
  opts.keep_jobs_on_stop = true;
  // Kept in the state directory: a daemon that restarts derives the same
  // trial keys, and the relays of trials still running stay heard.
  try {
    opts.relay_master = load_or_create_relay_master(c.state_dir + "/relay.key");
  } catch (const std::exception& e) {
    return caf::make_error(ec::bad_input, e.what());
  }
  auto rt = runtime::start(sys, opts);
  if (!rt)
    return rt.error();
  d->rt_ = std::move(*rt);
  d->listener_ = sys.spawn(session_listener, d.get());
  try {
    // Before the sessions resume: they are handed its address.
    const auto last = relay_ingress_of_last_run(endpoints_file_of(c.state_dir), c.relay_ingress);
    if (!last.empty())
      try {
        d->ingress_ = std::make_unique<relay_ingress>(d->ctx_, last, d->rt_->bus().publish,
                                                      *opts.relay_master);
      } catch (const std::exception&) {
        // taken since: a free one, as configured
      }
    if (!d->ingress_)
      d->ingress_ = std::make_unique<relay_ingress>(d->ctx_, c.relay_ingress,
                                                    d->rt_->bus().publish, *opts.relay_master);
  } catch (const std::exception& e) {
    return caf::make_error(ec::bus_failure, e.what());
  }
  if (auto resumed = d->resume_unfinished(); !resumed)
    return resumed.error();
  try {
    const auto curve = c.curve_key.empty() ? curve_keypair{} : read_curve_key_file(c.curve_key);
    if (!c.curve_key.empty() && curve.secret_key.empty())
      return caf::make_error(ec::bad_input, c.curve_key + ": a public key file; the daemon "
                                                          "needs the .key file with the secret key");
    if (!c.authorized_keys.empty())
      (void)read_authorized_keys(c.authorized_keys); // a bad folder stops the start, not a client
    d->zap_ = std::make_unique<zap_handler>(d->ctx_, access_source_of(c));
    d->server_ = std::make_unique<control_server>(
      d->ctx_, control_endpoint_of(c),
      [raw = d.get()](const checked_request& r) { return raw->handle(r); }, curve.secret_key);
    restrict_control_socket(d->server_->bound(), !c.control_users.empty());
  } catch (const input_error& e) {
    return caf::make_error(ec::bad_input, e.what());
  } catch (const std::exception& e) {
    return caf::make_error(ec::bus_failure, e.what());
  }
  spdlog::info("daemon: control at {}, bus at {} / {}, pool {}, {} sessions resumed",
               d->server_->bound(), d->rt_->bus().publish, d->rt_->bus().subscribe,
               opts.pool_dir, d->resumed_);
  return d;
}

caf::expected<void> tuning_daemon::resume_unfinished() {
  std::lock_guard<std::mutex> guard{index_mutex_};
  if (auto refreshed = index_.refresh(*rt_->pool()); !refreshed)
    return refreshed.error();
  for (const auto& id : index_.unfinished()) {
    if (auto started = run_session(id); !started) {
      spdlog::error("daemon: cannot resume session {}: {}", id, describe(started.error()));
      continue;
    }
    ++resumed_;
    spdlog::info("daemon: resumed session {}", id);
  }
  return {};
}

caf::expected<void> tuning_daemon::run_session(const std::string& id) {
  auto records = rt_->pool()->session_history(id, 0);
  if (!records)
    return records.error();
  if (const auto* tpu = find_first<wire::tpu_session_opened>(*records))
    return run_tpu_session(id, wire::body_of<wire::tpu_session_opened>(*tpu), true);
  const auto* opened = find_first<wire::session_opened>(*records);
  if (!opened)
    return caf::make_error(ec::session_failure, "session " + id + " has no session_opened record");
  auto job = wire::body_of<wire::session_opened>(*opened);
  // Its relays publish where this daemon's ingress is now (a free port may
  // differ from the one the session was submitted under).
  if (!job.relay_endpoint.empty())
    job.relay_endpoint = reachable(ingress_->bound());
  std::lock_guard<std::mutex> guard{sessions_mutex_};
  active_[id] = rt_->resume_session(id, std::move(job), listener_);
  return {};
}

void tuning_daemon::ended(const std::string& id, session_state state, const std::string& text) {
  {
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    active_.erase(id);
  }
  spdlog::info("daemon: session {} ended {}{}{}", id, to_string(state), text.empty() ? "" : ": ",
               text);
}

int tuning_daemon::active_count() {
  std::lock_guard<std::mutex> guard{sessions_mutex_};
  return int(active_.size());
}

control::reply tuning_daemon::handle(const checked_request& r) {
  using control::control_op;
  switch (r.op) {
    case control_op::health: return health();
    case control_op::submit: return submit(r.fields);
    case control_op::list: return list();
    case control_op::status: return status(r.fields.session);
    case control_op::cancel: return cancel(r.fields.session);
    case control_op::history: return history(r.fields);
    case control_op::ask: return ask(r.fields);
  }
  return control::refusal("unknown operation");
}

control::reply tuning_daemon::health() {
  auto r = accepted();
  r.version = paratune::version;
  r.uptime_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - started_).count();
  r.bus_subscribe = rt_->bus().subscribe;
  r.active_sessions = active_count();
  r.pool_next_seq = rt_->pool()->next_seq();
  add_ports(r);
  return r;
}

void tuning_daemon::serving_http(const std::string& address) {
  std::lock_guard<std::mutex> guard{http_mutex_};
  http_address_ = address;
}

void tuning_daemon::add_ports(control::reply& r) {
  r.relay_ingress = reachable(ingress_->bound()); // as each trial is handed it
  std::lock_guard<std::mutex> guard{http_mutex_};
  r.http = http_address_;
}

control::reply tuning_daemon::submit(const control::request& req) {
  if (active_count() >= cfg_.max_sessions)
    return control::refusal("the daemon runs " + std::to_string(cfg_.max_sessions)
                            + " sessions already (max_sessions); submit again when one ends");
  const auto label = req.job_path.empty() ? std::string("the submitted job") : req.job_path;
  session_plan plan;
  try {
    plan = plan_session_text(req.job_yaml, label,
                             {{}, cfg_.state_dir, req.trials, cfg_.reasoner, cfg_.secret_env});
  } catch (const input_error& e) {
    return control::refusal(e.what());
  }
  if (plan.kind == job_kind::tpu_experiment)
    return submit_tpu(req, label);
  const auto& job = plan.job;
  // The job was checked against its own secrets; the daemon's are more.
  if (auto e = job_env_error(job, secret_env_names(job, cfg_.reasoner, cfg_.secret_env)))
    return control::refusal(label + ": " + *e);
  auto& record = plan.record;
  if (!plan.relay_ingress.empty()) {
    record.relay_endpoint = reachable(ingress_->bound());
    record.relay_subscribe = rt_->bus().subscribe;
  }
  const auto claimed = rt_->claim_session_id();
  if (!claimed)
    return control::refusal("cannot name the session: " + describe(claimed.error()));
  const auto& id = *claimed;
  // Stored (and synced) before the id is answered: a session a client was
  // told of is never lost, whenever the daemon dies after this line.
  if (auto stored = rt_->append(wire::make_envelope(id, 0, record)); !stored)
    return control::refusal("cannot store the session: " + describe(stored.error()));
  if (auto started = run_session(id); !started)
    return control::refusal("cannot start session " + id + ": " + describe(started.error()));
  spdlog::info("daemon: session {} submitted: {} on {} x {}, {} trials", id, job.name,
               job.world_size(), job.cluster.device.name, record.trials);
  auto r = accepted();
  r.session = id;
  return r;
}

control::reply tuning_daemon::submit_tpu(const control::request& req, const std::string& label) {
  const auto claimed = rt_->claim_session_id();
  if (!claimed)
    return control::refusal("cannot name the session: " + describe(claimed.error()));
  const auto& id = *claimed;
  tpu_session_options o;
  o.id = id;
  try {
    o.experiment = parse_experiment(req.job_yaml, label);
    o.experiment_file = label;
    apply_tuning(o, parse_tpu_tuning(req.job_yaml, label), req.trials);
  } catch (const input_error& e) {
    return control::refusal(e.what());
  }
  // The daemon config's secrets are the session's too, as for a GPU job.
  std::set<std::string> secrets(o.secret_env.begin(), o.secret_env.end());
  secrets.insert(cfg_.secret_env.begin(), cfg_.secret_env.end());
  o.secret_env.assign(secrets.begin(), secrets.end());
  secrets.insert(always_secret_env().begin(), always_secret_env().end());
  if (auto e = env_map_error(o.env, "field 'env'", secrets))
    return control::refusal(label + ": " + *e);
  // The experiment as submitted, where the simulated trainer reads it; the
  // runs' folders beside it.
  const auto dir = cfg_.state_dir + "/tpu/" + id;
  o.experiment_file = dir + "/experiment.yaml";
  o.experiment_yaml = req.job_yaml;
  o.runs_dir = dir + "/runs";
  o.simulator = sibling_executable("paratune-tpu-sim", "PARATUNE_TPU_SIM");
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  std::ofstream out(o.experiment_file, std::ios::binary);
  out << req.job_yaml;
  out.close();
  if (made || !out)
    return control::refusal("cannot keep the experiment of session " + id + " in " + dir + ": "
                            + (made ? made.message() : std::string("write failed")));
  const auto record = opened_record(o);
  // Stored (and synced) before the id is answered, as a GPU session's.
  if (auto stored = rt_->append(wire::make_envelope(id, 0, record)); !stored)
    return control::refusal("cannot store the session: " + describe(stored.error()));
  if (auto started = run_tpu_session(id, record, false); !started)
    return control::refusal("cannot start session " + id + ": " + describe(started.error()));
  spdlog::info("daemon: TPU session {} submitted: {} on {}, {} runs", id, record.experiment_name,
               record.hardware, record.budget);
  auto r = accepted();
  r.session = id;
  return r;
}

caf::expected<void> tuning_daemon::run_tpu_session(const std::string& id,
                                                    const wire::tpu_session_opened& r,
                                                    bool resume) {
  tpu_session_options o;
  try {
    o = options_of(id, r);
  } catch (const input_error& e) {
    return caf::make_error(ec::bad_input, e.what());
  }
  o.resume = resume;
  std::lock_guard<std::mutex> guard{sessions_mutex_};
  if (!diagnosis_agents_) {
    // The Analyzer and the Proposal agent, which every TPU run's diagnosis
    // needs: started with the first TPU session.
    diagnosis_agent_options ao{cfg_.state_dir + "/knowledge", configs_dir() + "/knowledge",
                               configs_dir() + "/optimizations"};
    if (auto started = start_diagnosis_agents(sys_, *rt_, ao); !started)
      return started.error();
    diagnosis_agents_ = true;
  }
  auto session = sys_.spawn(tpu_session, rt_->deps(), &rt_->bridge(), std::move(o), listener_);
  rt_->adopt_session(session);
  active_[id] = session;
  return {};
}

control::reply tuning_daemon::list() {
  std::lock_guard<std::mutex> guard{index_mutex_};
  if (auto refreshed = index_.refresh(*rt_->pool()); !refreshed)
    return control::refusal("cannot read the pool: " + describe(refreshed.error()));
  auto r = accepted();
  r.sessions = index_.rows();
  add_ports(r);
  return r;
}

control::reply tuning_daemon::status(const std::string& id) {
  std::lock_guard<std::mutex> guard{index_mutex_};
  if (auto refreshed = index_.refresh(*rt_->pool()); !refreshed)
    return control::refusal("cannot read the pool: " + describe(refreshed.error()));
  auto row = index_.row(id);
  if (!row)
    return control::refusal("no session '" + id + "' in the pool");
  auto r = accepted();
  r.sessions.push_back(std::move(*row));
  return r;
}

control::reply tuning_daemon::cancel(const std::string& id) {
  session_actor session;
  {
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    if (auto it = active_.find(id); it != active_.end())
      session = it->second;
  }
  if (!session) {
    auto known = status(id);
    if (!known.ok)
      return known;
    return control::refusal("session '" + id + "' is not running: it ended "
                            + known.sessions.front().state);
  }
  caf::anon_send(session, cancel_atom_v, std::string("cancelled by a client"));
  spdlog::info("daemon: session {} cancelled", id);
  auto r = accepted();
  r.session = id;
  return r;
}

control::reply tuning_daemon::history(const control::request& req) {
  // Bounded pages (records and bytes), read straight from the pool.
  return serve_history(*rt_->pool(), req);
}

control::reply tuning_daemon::ask(const control::request& req) {
  auto records = rt_->pool()->session_history(req.session, 0);
  if (!records)
    return control::refusal("cannot read session " + req.session + ": "
                            + describe(records.error()));
  asked_turn asked;
  try {
    asked = ask_session(req.session, *records, req.question, req.thread, "the daemon's pool");
  } catch (const input_error& e) {
    return control::refusal(e.what());
  }
  // The exchanges first, the turn last: a turn is never stored without the
  // model's asks behind it. Asks are answered one at a time (the control
  // server's submit worker), so two never number the same thread.
  wire::envelope stored_turn;
  for (auto& e : asked.records) {
    auto seq = rt_->append(e);
    if (!seq)
      return control::refusal("cannot store the answer: " + describe(seq.error()));
    e.seq = *seq;
    stored_turn = e;
  }
  auto r = accepted();
  r.session = req.session;
  r.records.push_back(std::move(stored_turn));
  return r;
}

std::string tuning_daemon::metrics() {
  std::unique_lock<std::mutex> index_guard{index_mutex_};
  (void)index_.refresh(*rt_->pool());
  std::map<std::string, int> by_state;
  for (const auto& row : index_.rows())
    ++by_state[row.state];
  std::string out = "# HELP paratune_sessions Sessions in the pool, by state.\n"
                    "# TYPE paratune_sessions gauge\n";
  for (const auto* s : {"running", "paused", "finished", "exhausted", "converged", "failed",
                        "cancelled"})
    out += fmt::format("paratune_sessions{{state=\"{}\"}} {}\n", s, by_state[s]);
  out += fmt::format("# HELP paratune_sessions_active Sessions this daemon runs now.\n"
                     "# TYPE paratune_sessions_active gauge\nparatune_sessions_active {}\n",
                     active_count());
  const auto trials = index_.trials();
  index_guard.unlock();
  out += "# HELP paratune_trials Trials of every session, by state.\n"
         "# TYPE paratune_trials gauge\n";
  out += fmt::format("paratune_trials{{state=\"queued\"}} {}\n", trials.queued);
  out += fmt::format("paratune_trials{{state=\"running\"}} {}\n", trials.running);
  for (auto s : {trial_status::succeeded, trial_status::failed, trial_status::stopped,
                 trial_status::skipped}) {
    const auto it = trials.ended.find(s);
    out += fmt::format("paratune_trials{{state=\"{}\"}} {}\n", to_string(s),
                       it == trials.ended.end() ? 0 : it->second);
  }
  out += fmt::format("# HELP paratune_pool_records_total Records appended to the pool.\n"
                     "# TYPE paratune_pool_records_total counter\n"
                     "paratune_pool_records_total {}\n",
                     rt_->pool()->next_seq() - 1);
  out += fmt::format("# HELP paratune_bus_messages_total Messages the daemon's subscriber took "
                     "from the bus.\n# TYPE paratune_bus_messages_total counter\n"
                     "paratune_bus_messages_total {}\n",
                     rt_->bridge().received());
  out += fmt::format("# HELP paratune_bus_gaps_total Sequence gaps the daemon's subscriber saw "
                     "on the bus (each replayed from the pool).\n"
                     "# TYPE paratune_bus_gaps_total counter\nparatune_bus_gaps_total {}\n",
                     rt_->bridge().gaps());
  out += fmt::format("# HELP paratune_uptime_seconds Seconds since the daemon started.\n"
                     "# TYPE paratune_uptime_seconds gauge\nparatune_uptime_seconds {:.3f}\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - started_)
                       .count());
  if (server_)
    out += server_->stats().prometheus();
  if (zap_)
    out += zap_->prometheus();
  if (ingress_)
    out += ingress_->prometheus();
  return out;
}

std::string tuning_daemon::health_json() {
  const auto h = health();
  nlohmann::json j{{"status", "ok"},
                   {"version", h.version},
                   {"uptime_s", double(h.uptime_ms) / 1000.0},
                   {"active_sessions", h.active_sessions},
                   {"pool_next_seq", h.pool_next_seq},
                   {"control", server_ ? server_->bound() : std::string()},
                   {"bus_subscribe", h.bus_subscribe},
                   {"relay_ingress", h.relay_ingress},
                   {"http", h.http}};
  return j.dump();
}

void tuning_daemon::stop() {
  if (stopped_)
    return;
  stopped_ = true;
  server_.reset(); // no new requests while the rest goes
  zap_.reset();
  ingress_.reset();
  if (rt_)
    rt_->stop();
  if (listener_)
    caf::anon_send_exit(listener_, caf::exit_reason::user_shutdown);
  std::lock_guard<std::mutex> guard{sessions_mutex_};
  active_.clear();
}

} // namespace paratune
