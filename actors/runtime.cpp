#include "actors/runtime.hpp"

#include <chrono>
#include <ctime>
#include <random>

#include <caf/all.hpp>

#include "actors/bottleneck_analyst.hpp"
#include "actors/bus_bridge.hpp"
#include "actors/failure_analyst.hpp"
#include "actors/pool_actor.hpp"
#include "actors/session.hpp"
#include "actors/strategy_generator.hpp"
#include "actors/validator.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "storage/message_pool.hpp"

namespace paratune {

std::string new_session_id() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "s%Y%m%dT%H%M%S", &tm);
  std::random_device rd;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "-%04x", rd() & 0xffff);
  return std::string(buf) + suffix;
}

caf::expected<std::unique_ptr<runtime>> runtime::start(caf::actor_system& sys,
                                                       runtime_options opts) {
  auto db = message_pool::open(opts.pool_dir, {opts.sync_writes});
  if (!db)
    return db.error();
  std::unique_ptr<runtime> rt{new runtime(sys)};
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
  rt->deps_.pool = sys.spawn<caf::detached>(pool, shared);
  rt->deps_.egress = rt->bridge_->egress();
  auto& b = *rt->bridge_;
  auto deps = rt->deps_;
  auto analyst = sys.spawn<caf::detached>(bottleneck_analyst, deps);
  auto generator = sys.spawn(strategy_generator, deps);
  auto valid = sys.spawn(validator, deps);
  auto failures = sys.spawn(failure_analyst, deps);
  b.subscribe("analysis.", analyst);
  b.subscribe("report.", generator);
  b.subscribe("proposal.", valid);
  b.subscribe("trial.", failures);
  rt->agents_ = {analyst, generator, valid, failures};
  return rt;
}

runtime::runtime(caf::actor_system& sys) : sys_(sys) {
}

runtime::~runtime() {
  stop();
}

caf::actor runtime::start_session(const std::string& id, wire::session_opened job,
                                  const caf::actor& listener) {
  auto s = sys_.spawn(session, deps_, bridge_.get(), id, std::move(job), listener, false);
  sessions_.push_back(s);
  return s;
}

caf::expected<std::vector<wire::envelope>> runtime::history(const std::string& session) {
  caf::scoped_actor self{sys_};
  caf::expected<std::vector<wire::envelope>> out{std::vector<wire::envelope>{}};
  self->request(deps_.pool, std::chrono::seconds(30), history_atom_v, session)
    .receive(
      [&](const std::vector<std::string>& records) {
        std::vector<wire::envelope> decoded;
        for (const auto& r : records)
          decoded.push_back(wire::decode_envelope(r));
        out = std::move(decoded);
      },
      [&](caf::error& err) { out = std::move(err); });
  return out;
}

void runtime::stop() {
  if (stopped_)
    return;
  stopped_ = true;
  // Sessions unsubscribe from the bridge as they exit, and agents write to
  // the pool: both must be gone before the bus and the pool go.
  auto stop_all = [this](std::vector<caf::actor>& actors) {
    caf::scoped_actor self{sys_};
    for (auto& a : actors)
      self->send_exit(a, caf::exit_reason::user_shutdown);
    self->wait_for(actors);
    actors.clear();
  };
  stop_all(sessions_);
  stop_all(agents_);
  bridge_.reset(); // joins the poller, stops the egress actor
  proxy_.reset();
  std::vector<caf::actor> pool{caf::actor_cast<caf::actor>(deps_.pool)};
  stop_all(pool);
  deps_ = {};
  ctx_.reset();
}

} // namespace paratune
