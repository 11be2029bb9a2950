// Failures that once went unnoticed now surface: a session whose history
// does not read, a message the bus lost, an agent that died, an actor that
// ignores shutdown. Real runtime: loopback TCP bus, RocksDB pool, child
// processes.

#include <filesystem>
#include <thread>

#include <caf/all.hpp>
#include <gtest/gtest.h>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "actors/agent.hpp"
#include "actors/bus_bridge.hpp"
#include "actors/runtime.hpp"
#include "actors/tuning_session.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "messages/topics.hpp"
#include "tests/e2e/small_session.hpp"
#include "tests/fixtures/run_program.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct silent_failure : ::testing::Test {
  void SetUp() override {
    dir = test::make_temp_dir("silent");
    cfg.add_message_types<caf::id_block::paratune>();
    sys = std::make_unique<caf::actor_system>(cfg);
  }
  void TearDown() override {
    if (rt)
      rt->stop();
    rt.reset();
    sys.reset();
    fs::remove_all(dir);
  }

  /// A runtime on loopback TCP whose sessions replay the pool only every
  /// minute, so that a prompt recovery can only come from a bus gap.
  void start(std::chrono::milliseconds grace = 5000ms) {
    runtime_options o{dir + "/pool", {"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"}, true, false};
    o.grace = grace;
    o.session_tick = 60s;
    auto started = runtime::start(*sys, o);
    ASSERT_TRUE(started) << describe(started.error());
    rt = std::move(*started);
  }

  void append(const wire::envelope& e) {
    caf::scoped_actor self{*sys};
    self->request(rt->deps().pool, 10s, append_atom_v, e)
      .receive([](uint64_t) {}, [](caf::error& err) { FAIL() << describe(err); });
  }

  /// A job whose trials never end by themselves: the simulator is a script
  /// that sleeps, so the session stays in running_trial.
  wire::session_opened sleeping_job() {
    auto job = test::small_session(1);
    job.sim_path = test::write_file(dir, "sleeping-sim", "#!/bin/sh\nexec sleep 30\n");
    fs::permissions(job.sim_path, fs::perms::owner_all);
    return job;
  }

  /// Waits until the pool holds a record of `type` for `session`.
  std::optional<wire::envelope> wait_for_record(const std::string& session, const char* type) {
    for (int i = 0; i < 300; ++i) {
      auto history = rt->history(session);
      if (history)
        for (const auto& e : *history)
          if (e.type == type)
            return e;
      std::this_thread::sleep_for(100ms);
    }
    return std::nullopt;
  }

  std::string dir;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::unique_ptr<runtime> rt;
};

/// A trial_result whose status is a word this build does not know.
struct unknown_status_result {
  int trial = 7;
  std::string status = "exploded";
  MSGPACK_DEFINE_MAP(trial, status)
};

TEST_F(silent_failure, a_session_whose_history_does_not_read_ends_with_the_reason) {
  start();
  const std::string id = "sf-history";
  wire::envelope bad;
  bad.type = wire::type_name<wire::trial_result>();
  bad.session = id;
  bad.trial = 7;
  bad.body = wire::pack(unknown_status_result{});
  append(bad);
  caf::scoped_actor self{*sys};
  auto session = rt->start_session(id, test::small_session(2), listener_of(self));
  auto end = await_session(self, session, 60s);
  ASSERT_TRUE(end) << describe(end.error());
  EXPECT_EQ(end->state, session_state::failed);
  EXPECT_NE(end->text.find("the analysis after trial 0 failed"), std::string::npos) << end->text;
  EXPECT_NE(end->text.find("unknown value 'exploded'"), std::string::npos) << end->text;
  // The end is stored too, with the same reason.
  auto status = wait_for_record(id, "session_status");
  ASSERT_TRUE(status);
  auto st = wire::body_of<wire::session_status>(*status);
  EXPECT_EQ(st.state, session_state::failed);
  EXPECT_EQ(st.text, end->text);
}

/// Sends one message with a chosen sequence number, as a publisher would.
void send_numbered(zmq::socket_t& pub, const std::string& topic, const wire::envelope& e,
                   uint64_t publisher, uint64_t seq) {
  const auto payload = wire::pack(e);
  const auto frame = bus_sequence{publisher, seq}.encode();
  std::array<zmq::const_buffer, 3> parts{zmq::buffer(topic), zmq::buffer(payload),
                                         zmq::buffer(frame)};
  zmq::send_multipart(pub, parts);
}

TEST_F(silent_failure, a_message_the_bus_lost_is_detected_by_sequence_and_recovered_from_the_pool) {
  start();
  const std::string id = "sf-gap";
  caf::scoped_actor self{*sys};
  auto session = rt->start_session(id, sleeping_job(), listener_of(self));
  auto started = wait_for_record(id, "trial_started");
  ASSERT_TRUE(started) << "trial 1 never started";
  // Trial 1's result reaches the pool but not the bus.
  wire::trial_result result;
  result.trial = 1;
  result.config = wire::body_of<wire::trial_started>(*started).config;
  result.status = trial_status::succeeded;
  result.tflops_per_gpu = 180;
  append(wire::make_envelope(id, 1, result));
  // A publisher of our own: its messages on the trial topic are numbered 1,
  // then 3. Number 2 stands for the result the bus dropped.
  zmq::context_t ctx{1};
  zmq::socket_t pub(ctx, zmq::socket_type::pub);
  pub.set(zmq::sockopt::linger, 0);
  pub.connect(rt->bus().publish);
  const uint64_t publisher = 0xfeed;
  wire::envelope probe;
  probe.type = "probe";
  probe.session = id;
  // Until the proxy passes our messages on (the slow joiner), a probe topic
  // the test listens to; numbered on its own, so it leaves no gap.
  rt->bridge().subscribe("probe." + id, caf::actor_cast<bus_agent_actor>(self));
  bool through = false;
  for (uint64_t n = 1; n <= 500 && !through; ++n) {
    send_numbered(pub, "probe." + id, probe, publisher, n);
    self->receive([&](bus_atom, const std::string&, const std::string&) { through = true; },
                  caf::after(20ms) >> [] {});
  }
  ASSERT_TRUE(through);
  const auto topic = topics::trial_state(id, 1);
  send_numbered(pub, topic, probe, publisher, 1);
  send_numbered(pub, topic, probe, publisher, 3);
  // Without the replay the gap triggers, the session would wait for its
  // next tick, a minute away.
  auto end = await_session(self, session, 20s);
  ASSERT_TRUE(end) << describe(end.error());
  EXPECT_EQ(end->state, session_state::finished);
  EXPECT_EQ(rt->bridge().gaps(), 1u);
}

/// An agent whose bus handler throws outside dispatch(), as a bug would.
struct fragile_state : agent_state {
  explicit fragile_state(bus_agent_actor::pointer self) : agent_state(self) {}
  static inline const char* name = "fragile";
};

bus_agent_actor::behavior_type fragile(bus_agent_actor::stateful_pointer<fragile_state>) {
  return {
    [](bus_atom, const std::string&, const std::string&) -> void {
      throw std::runtime_error("index out of range");
    },
  };
}

TEST_F(silent_failure, an_agent_that_dies_ends_the_sessions_that_need_it) {
  start();
  const std::string id = "sf-agent";
  caf::scoped_actor self{*sys};
  auto session = rt->start_session(id, sleeping_job(), listener_of(self));
  ASSERT_TRUE(wait_for_record(id, "trial_started"));
  auto agent = sys->spawn(fragile);
  rt->adopt_agent(agent, "fragile");
  std::this_thread::sleep_for(100ms); // the watchdog monitors it first
  self->send(agent, bus_atom_v, std::string("topic"), std::string("payload"));
  auto end = await_session(self, session, 20s);
  ASSERT_TRUE(end) << describe(end.error());
  EXPECT_EQ(end->state, session_state::failed);
  EXPECT_EQ(end->text,
            "the fragile agent died: agent failure: fragile: index out of range");
}

TEST_F(silent_failure, a_session_that_dies_is_an_error_for_its_caller) {
  start();
  caf::scoped_actor self{*sys};
  auto session = rt->start_session("sf-killed", sleeping_job(), listener_of(self));
  ASSERT_TRUE(wait_for_record("sf-killed", "trial_started"));
  self->send_exit(session, caf::make_error(ec::storage_failure, "disk full"));
  auto end = await_session(self, session, 20s);
  ASSERT_FALSE(end);
  EXPECT_EQ(describe(end.error()),
            "session failure: the session ended without an answer: storage failure: disk full");
}

TEST_F(silent_failure, stop_kills_what_ignores_the_shutdown_after_the_grace_period) {
  start(200ms);
  auto stubborn = sys->spawn([](caf::event_based_actor* self) -> caf::behavior {
    self->set_exit_handler([](caf::exit_msg&) {}); // never quits on request
    return {[](int) {}};
  });
  rt->adopt_agent(stubborn, "stubborn");
  caf::scoped_actor self{*sys};
  self->monitor(stubborn);
  rt->stop();
  caf::error reason;
  self->receive([&](caf::down_msg& dm) { reason = dm.reason; },
                caf::after(10s) >> [] { FAIL() << "still alive after stop()"; });
  EXPECT_EQ(reason, caf::exit_reason::kill);
}

TEST_F(silent_failure, a_bus_that_cannot_be_reached_is_a_clear_error) {
  runtime_options o{dir + "/pool", {"bogus://nowhere", "bogus://nowhere"}, false, false};
  auto started = runtime::start(*sys, o);
  ASSERT_FALSE(started);
  EXPECT_EQ(describe(started.error()).rfind("bus failure: cannot start the bus: ", 0), 0u)
    << describe(started.error());
}

} // namespace
} // namespace paratune
