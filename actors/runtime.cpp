#include "actors/runtime.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>
#include <set>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/bottleneck_analyst.hpp"
#include "actors/bus_bridge.hpp"
#include "messages/topics.hpp"
#include "actors/failure_analyst.hpp"
#include "actors/pool_actor.hpp"
#include "actors/tuning_session.hpp"
#include "actors/watchdog.hpp"
#include "actors/strategy_generator.hpp"
#include "actors/telemetry_agent.hpp"
#include "actors/validator.hpp"
#include "messages/ec.hpp"
#include "storage/message_pool.hpp"

namespace paratune {

std::string new_session_id(const std::function<bool(const std::string&)>& taken) {
  std::random_device rd;
  for (;;) {
    // The time is read on every draw: a second that runs out of suffixes
    // (65,536 ids taken) moves on to the next.
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "s%Y%m%dT%H%M%S", &tm);
    char suffix[8];
    std::snprintf(suffix, sizeof suffix, "-%04x", rd() & 0xffff);
    auto id = std::string(buf) + suffix;
    if (!taken || !taken(id))
      return id;
  }
}

caf::expected<std::string> runtime::claim_session_id() {
  std::lock_guard<std::mutex> guard{ids_mutex_};
  caf::error unreadable;
  auto id = new_session_id([&](const std::string& candidate) {
    auto used = id_in_use(candidate);
    if (!used)
      unreadable = used.error();
    return used && *used;
  });
  if (unreadable)
    return unreadable;
  claimed_ids_.insert(id);
  return id;
}

caf::expected<bool> runtime::session_id_in_use(const std::string& id) {
  std::lock_guard<std::mutex> guard{ids_mutex_};
  return id_in_use(id);
}

caf::expected<bool> runtime::id_in_use(const std::string& id) const {
  if (claimed_ids_.count(id))
    return true;
  // A session of an earlier process: the pool outlives it.
  auto page = pool_->session_page(id, 0, 1, message_pool::max_record_bytes);
  if (!page)
    return page.error();
  return !page->records.empty();
}

caf::expected<std::unique_ptr<runtime>> runtime::start(caf::actor_system& sys,
                                                       runtime_options opts) {
  auto db = message_pool::open(opts.pool_dir, {opts.sync_writes});
  if (!db)
    return db.error();
  std::unique_ptr<runtime> rt{new runtime(sys)};
  rt->grace_ = opts.grace;
  rt->session_tick_ = opts.session_tick;
  rt->keep_jobs_ = opts.keep_jobs_on_stop;
  rt->relay_master_ = opts.relay_master;
  rt->analysis_workers_ = opts.analysis_workers;
  rt->watchdog_ = sys.spawn(watchdog);
  if (opts.bus.publish.empty()) {
    static std::atomic<int> counter{0};
    opts.bus = bus_endpoints::inproc("paratune-" + std::to_string(counter++));
  }
  try {
    rt->ctx_ = std::make_unique<zmq::context_t>(1);
    if (opts.host_proxy) {
      rt->proxy_ = std::make_unique<bus_proxy>(*rt->ctx_, opts.bus);
      opts.bus = rt->proxy_->bound();
    }
    rt->bus_ = opts.bus;
    rt->bridge_ = std::make_unique<bus_bridge>(sys, *rt->ctx_, opts.bus);
  } catch (const std::exception& e) {
    return caf::make_error(ec::bus_failure, std::string("cannot start the bus: ") + e.what());
  }
  std::shared_ptr<message_pool> shared{std::move(*db)};
  rt->pool_ = shared;
  rt->deps_.egress = rt->bridge_->egress();
  rt->deps_.pool =
    sys.spawn<caf::detached>(paratune::pool, shared, opts.pool_reads, rt->deps_.egress);
  caf::anon_send(rt->watchdog_, watch_atom_v, caf::actor_cast<caf::actor>(rt->deps_.pool),
                 std::string("pool"));
  caf::anon_send(rt->watchdog_, watch_atom_v, caf::actor_cast<caf::actor>(rt->deps_.egress),
                 std::string("egress"));
  if (opts.tuning_agents)
    if (auto started = rt->start_tuning_agents(); !started)
      return started.error();
  return rt;
}

caf::expected<void> runtime::start_tuning_agents() {
  auto& b = *bridge_;
  // The analyst only queues and hands out; its workers, detached, analyse
  // different sessions in parallel.
  auto analyst = sys_.spawn(bottleneck_analyst, deps_, analysis_workers_);
  auto generator = sys_.spawn(strategy_generator, deps_);
  auto valid = sys_.spawn(validator, deps_, validator_options{keep_jobs_, relay_master_});
  auto failures = sys_.spawn<caf::detached>(failure_analyst, deps_);
  // Detached: its dcgm scrapes block its own thread, never a shared one.
  auto telemetry = sys_.spawn<caf::detached>(telemetry_agent, deps_);
  b.subscribe("analysis.", analyst);
  b.subscribe("report.", generator);
  // The pool's copy of every stored record: the analyst's and the
  // generator's ledgers follow their sessions without reading the pool.
  b.subscribe(std::string(topics::record_prefix), analyst);
  b.subscribe(std::string(topics::record_prefix), generator);
  b.subscribe("proposal.", valid);
  b.subscribe("session.", valid); // a cancelled session's trials are stopped
  b.subscribe("trial.", failures);
  b.subscribe("output.", telemetry);
  b.subscribe("trial.", telemetry);
  adopt_agent(analyst, "bottleneck_analyst");
  adopt_agent(generator, "strategy_generator");
  adopt_agent(valid, "validator");
  adopt_agent(failures, "failure_analyst");
  adopt_agent(telemetry, "telemetry_agent");
  if (!b.await_subscribed(sys_,
                          {"analysis.", "report.", "proposal.", "trial.", "output.",
                           std::string(topics::record_prefix)},
                          std::chrono::seconds(10)))
    return caf::make_error(ec::bus_failure,
                           "the agents' topics never reached the bus at " + bus_.publish);
  return {};
}

runtime::runtime(caf::actor_system& sys) : sys_(sys) {
}

runtime::~runtime() {
  stop();
}

tuning_session_actor runtime::start_session(const std::string& id, wire::session_opened job,
                                            const session_listener_actor& listener) {
  auto s = sys_.spawn(tuning_session, deps_, bridge_.get(), id, std::move(job), listener,
                      tuning_session_options{false, session_tick_});
  adopt_session(s);
  return s;
}

tuning_session_actor runtime::resume_session(const std::string& id, wire::session_opened job,
                                             const session_listener_actor& listener) {
  auto s = sys_.spawn(tuning_session, deps_, bridge_.get(), id, std::move(job), listener,
                      tuning_session_options{true, session_tick_});
  adopt_session(s);
  return s;
}

void runtime::adopt_session(const session_actor& session) {
  bridge_->sweep(); // the subscriptions of sessions that have ended
  caf::anon_send(watchdog_, watch_atom_v, caf::actor_cast<caf::actor>(session));
  sessions_.push_back(caf::actor_cast<caf::strong_actor_ptr>(session));
}

void runtime::adopt_agent(caf::strong_actor_ptr agent, const std::string& name) {
  caf::anon_send(watchdog_, watch_atom_v, caf::actor_cast<caf::actor>(agent), name);
  agents_.push_back(std::move(agent));
}

caf::expected<std::vector<wire::envelope>> runtime::history(const std::string& session) {
  caf::scoped_actor self{sys_};
  caf::expected<std::vector<wire::envelope>> out{std::vector<wire::envelope>{}};
  self->request(deps_.pool, std::chrono::seconds(30), history_atom_v, session, uint64_t(0))
    .receive([&](std::vector<wire::envelope>& records) { out = std::move(records); },
             [&](caf::error& err) { out = std::move(err); });
  return out;
}

caf::expected<uint64_t> runtime::append(wire::envelope e) {
  caf::scoped_actor self{sys_};
  caf::expected<uint64_t> out{uint64_t(0)};
  self->request(deps_.pool, std::chrono::seconds(30), append_atom_v, std::move(e))
    .receive([&](uint64_t seq) { out = seq; }, [&](caf::error& err) { out = std::move(err); });
  return out;
}

void runtime::stop_group(std::vector<caf::strong_actor_ptr>& actors) {
  caf::scoped_actor self{sys_};
  std::set<caf::actor_addr> alive;
  actors.erase(std::remove(actors.begin(), actors.end(), nullptr), actors.end());
  for (auto& a : actors) {
    self->monitor(a);
    alive.insert(caf::actor_cast<caf::actor_addr>(a));
    self->send_exit(a, caf::exit_reason::user_shutdown);
  }
  auto wait_until = [&](std::chrono::steady_clock::time_point deadline) {
    while (!alive.empty()) {
      const auto left = deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero())
        return;
      self->receive([&](caf::down_msg& dm) { alive.erase(dm.source); },
                    caf::after(std::chrono::duration_cast<std::chrono::milliseconds>(left)) >> [] {});
    }
  };
  wait_until(std::chrono::steady_clock::now() + grace_);
  // Whatever ignored the shutdown (a handler stuck, an exit handler that
  // does not quit) is killed: kill cannot be trapped.
  for (auto& a : actors)
    if (alive.count(caf::actor_cast<caf::actor_addr>(a))) {
      spdlog::warn("runtime: {} did not stop within {} ms, killing it", a->id(), grace_.count());
      self->send_exit(a, caf::exit_reason::kill);
    }
  wait_until(std::chrono::steady_clock::now() + std::chrono::seconds(10));
  actors.clear();
}

void runtime::stop() {
  if (stopped_)
    return;
  stopped_ = true;
  // Sessions unsubscribe from the bridge as they exit, and agents write to
  // the pool: both must be gone before the bus and the pool go.
  stop_group(sessions_);
  stop_group(agents_);
  bridge_.reset(); // joins the poller, stops the egress actor
  proxy_.reset();
  std::vector<caf::strong_actor_ptr> last{caf::actor_cast<caf::strong_actor_ptr>(deps_.pool),
                                          caf::actor_cast<caf::strong_actor_ptr>(watchdog_)};
  stop_group(last);
  deps_ = {};
  pool_.reset();
  ctx_.reset();
}

} // namespace paratune
