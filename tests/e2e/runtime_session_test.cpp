// A session in-process over the real bus (loopback TCP), the real RocksDB
// pool and real paratune-sim child processes, with garbage injected on the
// bus while it runs.

#include <filesystem>
#include <set>
#include <thread>

#include <caf/all.hpp>
#include <gtest/gtest.h>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "actors/runtime.hpp"
#include "actors/tuning_session.hpp"
#include "ledger/session_ledger.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "messages/ec.hpp"
#include "messages/type_ids.hpp"
#include "storage/message_pool.hpp"
#include "tests/e2e/small_session.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

using test::small_session;

struct runtime_session : ::testing::Test {
  void SetUp() override { dir = test::make_temp_dir("runtime"); }
  void TearDown() override { fs::remove_all(dir); }
  std::string dir;
};

/// Sends frames the agents cannot read on every topic they listen to.
void spray_garbage(const std::string& endpoint) {
  zmq::context_t ctx{1};
  zmq::socket_t pub(ctx, zmq::socket_type::pub);
  pub.set(zmq::sockopt::linger, 0);
  pub.connect(endpoint);
  std::this_thread::sleep_for(std::chrono::milliseconds(200)); // slow joiner
  auto junk = wire::pack(std::string("not an envelope"));
  wire::envelope future = wire::make_envelope("x", 1, wire::analysis_request{0});
  future.v = 99;
  auto wrong_body = wire::make_envelope("x", 1, wire::telemetry{});
  wrong_body.type = "proposal";
  for (const char* topic : {"analysis.x", "report.x", "proposal.x", "trial.x.1.state",
                            "failure.x.1"}) {
    uint64_t n = 0;
    for (const auto& payload : {junk, std::string("\xc1\xc1\xc1"), wire::pack(future),
                                wire::pack(wrong_body)}) {
      // A valid sequence frame, so that the garbage gets past the bus to the agents.
      const auto seq = bus_sequence{0x5eed, ++n}.encode();
      std::array<zmq::const_buffer, 3> parts{zmq::buffer(std::string_view(topic)),
                                             zmq::buffer(payload), zmq::buffer(seq)};
      zmq::send_multipart(pub, parts);
    }
    zmq::send_multipart(pub, std::array<zmq::const_buffer, 1>{zmq::buffer(std::string_view(topic))});
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

TEST_F(runtime_session, runs_over_the_bus_survives_garbage_and_stores_every_step) {
  caf::actor_system_config cfg;
  cfg.add_message_types<caf::id_block::paratune>();
  caf::actor_system sys{cfg};
  bus_endpoints ep{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"};
  auto rt = runtime::start(sys, {dir + "/pool", ep, true, false});
  ASSERT_TRUE(rt) << to_string(rt.error());
  EXPECT_NE((*rt)->bus().publish.find("tcp://127.0.0.1:"), std::string::npos);
  EXPECT_EQ((*rt)->bus().publish.find('*'), std::string::npos);  // the real port
  spray_garbage((*rt)->bus().publish);
  caf::scoped_actor self{sys};
  const std::string id = "e2e-1";
  auto session = (*rt)->start_session(id, small_session(5), listener_of(self));
  auto end = await_session(self, session, std::chrono::seconds(120));
  ASSERT_TRUE(end) << describe(end.error());
  EXPECT_EQ(end->state, session_state::finished);
  auto history = (*rt)->history(id);
  ASSERT_TRUE(history);
  std::map<std::string, int> count;
  uint64_t last_seq = 0;
  for (const auto& e : *history) {
    ++count[e.type];
    EXPECT_GT(e.seq, last_seq); // read back in append order
    last_seq = e.seq;
  }
  EXPECT_EQ(count["session_opened"], 1);
  EXPECT_EQ(count["trial_result"], 5);
  EXPECT_EQ(count["trial_started"], 5);
  EXPECT_EQ(count["proposal"], 5);
  EXPECT_GE(count["analysis_report"], 5);
  EXPECT_EQ(count["session_status"], 1);
  session_ledger ledger;
  ledger.apply(*history);
  auto outcomes = ledger.outcomes();
  ASSERT_EQ(outcomes.size(), 5u);
  std::set<std::string> configs;
  for (const auto& o : outcomes)
    EXPECT_TRUE(configs.insert(canonical_key(o.config)).second);
  EXPECT_EQ(outcomes[0].status, trial_status::succeeded);
  double best = 0;
  for (const auto& o : outcomes)
    best = std::max(best, o.tflops_per_gpu);
  EXPECT_GT(best, outcomes[0].tflops_per_gpu * 1.2); // tuning helped
  // Every proposal carries its reasoning.
  for (const auto& e : *history) {
    if (e.type == "proposal") {
      EXPECT_NE(wire::body_of<wire::proposal>(e).reasoning.find("Health:"), std::string::npos);
    }
  }
  (*rt)->stop();
}

TEST_F(runtime_session, the_pool_reopens_with_the_whole_session_in_order) {
  {
    caf::actor_system_config cfg;
    cfg.add_message_types<caf::id_block::paratune>();
    caf::actor_system sys{cfg};
    auto rt = runtime::start(sys, {dir + "/pool", {}, true, false});
    ASSERT_TRUE(rt);
    caf::scoped_actor self{sys};
    auto session = (*rt)->start_session("e2e-2", small_session(2), listener_of(self));
    ASSERT_TRUE(await_session(self, session, std::chrono::seconds(60)));
    (*rt)->stop();
  }
  auto pool = message_pool::open(dir + "/pool");
  ASSERT_TRUE(pool);
  auto history = (*pool)->session_history("e2e-2");
  ASSERT_TRUE(history);
  session_ledger ledger;
  ledger.apply(*history);
  EXPECT_EQ(ledger.outcomes().size(), 2u);
  EXPECT_EQ(history->front().type, "session_opened");
  // The session's end is its coordinator's last record. The telemetry
  // agent (its own thread) records the last trial's series when that
  // trial's result comes, which may be after the session ended.
  auto last = history->rbegin();
  while (last != history->rend() && last->type == "metric_series")
    ++last;
  ASSERT_NE(last, history->rend());
  EXPECT_EQ(last->type, "session_status");
}

TEST_F(runtime_session, a_locked_pool_is_a_clear_error) {
  auto held = message_pool::open(dir + "/pool");
  ASSERT_TRUE(held);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto rt = runtime::start(sys, {dir + "/pool", {}, true, false});
  ASSERT_FALSE(rt);
  EXPECT_NE(describe(rt.error()).find("cannot open message pool"), std::string::npos);
}

} // namespace
} // namespace paratune
