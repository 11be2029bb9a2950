// The Analyzer and Proposal agents over the real bus (loopback TCP) and the
// real RocksDB pool: a diagnose_request in, a diagnosis and three proposals
// out, everything stored in order; garbage and bad requests do not stop them.

#include <filesystem>
#include <thread>

#include <caf/all.hpp>
#include <gtest/gtest.h>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "actors/bus_bridge.hpp"
#include "actors/diagnosis_agents.hpp"
#include "actors/runtime.hpp"
#include "adapters/config/job_loader.hpp"
#include "messages/codec.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "messages/diagnosis_topics.hpp"
#include "messages/type_ids.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/diagnose/runtime_fixture.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

struct agents : test::runtime_fixture {
  void SetUp() override {
    runtime_fixture::SetUp();
    if (HasFatalFailure())
      return;
    diagnosis_agent_options o;
    o.knowledge_index_dir = dir + "/knowledge";
    o.knowledge_docs_dir = test::source_dir() + "/configs/knowledge";
    o.optimizations_dir = test::source_dir() + "/configs/optimizations";
    auto agents_started = start_diagnosis_agents(*sys, *rt, o);
    ASSERT_TRUE(agents_started) << to_string(agents_started.error());
  }

  /// What a coordinator does: store the request, then publish it.
  void request(const std::string& session, const std::string& scenario_dir,
               const std::string& xprof) {
    wire::diagnose_request req;
    req.experiment_yaml = read_text_file(scenario_dir + "/experiment.yaml");
    req.experiment_name = scenario_dir + "/experiment.yaml";
    req.xprof = xprof;
    auto e = wire::make_envelope(session, 0, req);
    caf::scoped_actor self{*sys};
    self->request(rt->deps().pool, std::chrono::seconds(10), append_atom_v, e)
      .receive([&](uint64_t seq) { e.seq = seq; },
               [](caf::error& err) { FAIL() << to_string(err); });
    self->send(rt->deps().egress, publish_atom_v, topics::diagnose(session), wire::pack(e));
  }

  /// Subscribes the listener and waits until the subscription has reached
  /// the proxy (bus_bridge::await_subscribed). next() skips its probes.
  void listen(caf::scoped_actor& self, const std::string& prefix) {
    rt->bridge().subscribe(prefix, caf::actor_cast<bus_agent_actor>(self));
    ASSERT_TRUE(rt->bridge().await_subscribed(*sys, {prefix}, std::chrono::seconds(10)))
      << "subscription to " << prefix << " never reached the bus";
  }

  /// The next envelope on a topic prefix the listener was subscribed to.
  std::optional<wire::envelope> next(caf::scoped_actor& self, std::chrono::seconds wait) {
    std::optional<wire::envelope> out;
    const auto deadline = std::chrono::steady_clock::now() + wait;
    while (!out && std::chrono::steady_clock::now() < deadline) {
      self->receive(
        [&](bus_atom, const std::string& topic, const std::string& payload) {
          if (topic.find(probe_suffix) == std::string::npos)
            out = wire::decode_envelope(payload);
        },
        caf::after(wait) >> [] {});
    }
    return out;
  }

  static constexpr const char* probe_suffix = "_probe";
};

void spray_garbage(const std::string& endpoint) {
  zmq::context_t ctx{1};
  zmq::socket_t pub(ctx, zmq::socket_type::pub);
  pub.set(zmq::sockopt::linger, 0);
  pub.connect(endpoint);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // slow joiner
  auto wrong = wire::make_envelope("g", 0, wire::telemetry{});
  wrong.type = "diagnose_request";  // claims a type its body is not
  uint64_t n = 0;
  for (const char* topic : {"diagnose.g", "diagnosis.g"})
    for (const auto& payload : {std::string("\xc1\xc1"), wire::pack(std::string("junk")),
                                wire::pack(wrong)}) {
      // A valid sequence frame, so that the garbage gets past the bus to the agents.
      const auto seq = bus_sequence{0x5eed, ++n}.encode();
      std::array<zmq::const_buffer, 3> parts{zmq::buffer(std::string_view(topic)),
                                             zmq::buffer(payload), zmq::buffer(seq)};
      zmq::send_multipart(pub, parts);
    }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

TEST_F(agents, diagnose_over_the_bus_and_store_every_step) {
  spray_garbage(rt->bus().publish);
  caf::scoped_actor self{*sys};
  listen(self, topics::diagnosis_prefix);
  listen(self, topics::proposals_prefix);
  const auto scenario = test::asap_dir("v5e-256-comm");
  request("asap-3", scenario, scenario);

  auto d = next(self, std::chrono::seconds(60));
  ASSERT_TRUE(d);
  ASSERT_EQ(d->type, "diagnosis");
  EXPECT_EQ(d->session, "asap-3");
  const auto diag = wire::body_of<wire::diagnosis>(*d);
  EXPECT_TRUE(diag.error.empty()) << diag.error;
  EXPECT_EQ(diag.bottleneck, "communication");
  EXPECT_EQ(diag.top_ops.size(), 5u);
  EXPECT_NEAR(diag.measured_step_ms, 7354.7, 0.1);

  auto p = next(self, std::chrono::seconds(60));
  ASSERT_TRUE(p);
  ASSERT_EQ(p->type, "proposal_set");
  const auto set = wire::body_of<wire::proposal_set>(*p);
  ASSERT_EQ(set.proposals.size(), 3u);
  EXPECT_EQ(parse_mesh(set.proposals[0].mesh), parse_mesh("replica=1,data=8,model=2,seq=16"));
  bool knowledge = false;
  for (const auto& c : set.proposals[0].citations)
    knowledge |= c.kind == "knowledge";
  EXPECT_TRUE(knowledge);

  auto history = rt->history("asap-3");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ((*history)[0].type, "diagnose_request");
  EXPECT_EQ((*history)[1].type, "diagnosis");
  EXPECT_EQ((*history)[2].type, "proposal_set");
  EXPECT_LT((*history)[1].seq, (*history)[2].seq);
  // The ledger was seeded once from configs/optimizations.
  auto ledger = rt->history(wire::optimization_ledger);
  ASSERT_TRUE(ledger);
  EXPECT_EQ(wire::optimizations_of(*ledger).size(), 5u);
}

TEST_F(agents, history_from_the_ledger_is_cited_for_a_similar_job) {
  caf::scoped_actor self{*sys};
  listen(self, topics::proposals_prefix);
  const auto scenario = test::asap_dir("v5p-512-compute");
  request("asap-1", scenario, scenario);
  auto p = next(self, std::chrono::seconds(60));
  ASSERT_TRUE(p);
  const auto set = wire::body_of<wire::proposal_set>(*p);
  ASSERT_FALSE(set.proposals.empty());
  EXPECT_EQ(parse_mesh(set.proposals[0].mesh), parse_mesh("model=8,data=16,seq=4"));
  ASSERT_FALSE(set.proposals[0].citations.empty());
  EXPECT_EQ(set.proposals[0].citations[0].kind, "history");
  EXPECT_EQ(set.proposals[0].citations[0].id, "asap-2025-v5p-512-dp-over-seq");
}

TEST_F(agents, a_request_that_cannot_be_served_gets_a_diagnosis_with_the_reason) {
  caf::scoped_actor self{*sys};
  listen(self, topics::diagnosis_prefix);
  listen(self, topics::proposals_prefix);
  request("bad-1", test::asap_dir("v5e-256-comm"), dir + "/no-such-profile");
  auto d = next(self, std::chrono::seconds(60));
  ASSERT_TRUE(d);
  ASSERT_EQ(d->type, "diagnosis");
  const auto diag = wire::body_of<wire::diagnosis>(*d);
  EXPECT_NE(diag.error.find("no-such-profile"), std::string::npos) << diag.error;
  EXPECT_FALSE(next(self, std::chrono::seconds(2)));  // no proposals for nothing
  // The agents are still there for the next request.
  const auto scenario = test::asap_dir("v6e-16-hbm");
  request("after-bad", scenario, scenario);
  auto again = next(self, std::chrono::seconds(60));
  ASSERT_TRUE(again);
  EXPECT_EQ(wire::body_of<wire::diagnosis>(*again).bottleneck, "hbm_bandwidth");
}

} // namespace
} // namespace paratune
