// The bottleneck analyst's queue, on a real pool: a request that a newer one
// of its session superseded is never analysed, and a re-ask of a request
// already reported on is answered from the stored report.

#include <chrono>
#include <thread>

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include "actors/bottleneck_analyst.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"
#include "messages/type_ids.hpp"
#include "tests/e2e/small_session.hpp"
#include "tests/fixtures/runtime_test.hpp"

namespace paratune {
namespace {

/// The pool and the bus, without OptiCo's agents: the analyst under test
/// is the only one, and its reports go to no generator.
struct analyst_queue : test::runtime_test {
  analyst_queue() { tuning_agents = false; }

  /// The session's analysis reports, by request number.
  std::vector<int> reports(const std::string& id) {
    std::vector<int> out;
    auto history = rt->history(id);
    EXPECT_TRUE(history);
    for (const auto& e : *history)
      if (e.type == wire::type_name<wire::analysis_report>())
        out.push_back(wire::body_of<wire::analysis_report>(e).request);
    return out;
  }
};

TEST_F(analyst_queue, a_superseded_request_is_skipped_and_a_reask_resends_the_report) {
  const std::string id = "superseded-1";
  ASSERT_TRUE(rt->append(wire::make_envelope(id, 0, test::small_session(5))));
  // The session asked three times before the analyst took any: requests 1
  // and 2 are superseded by 3.
  std::vector<wire::envelope> requests;
  for (int n = 1; n <= 3; ++n) {
    auto e = wire::make_envelope(id, 0, wire::analysis_request{0, n, 1});
    auto seq = rt->append(e);
    ASSERT_TRUE(seq);
    e.seq = *seq;
    requests.push_back(e);
  }
  caf::scoped_actor self{*sys};
  auto analyst = sys->spawn(bottleneck_analyst, rt->deps(), 1);
  for (const auto& e : requests)
    self->send(analyst, bus_atom_v, topics::analysis(id), wire::pack(e));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (reports(id).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(500)); // nothing more comes
  EXPECT_EQ(reports(id), std::vector<int>{3});
  // The same request again (the session's quiet limit): no second analysis.
  self->send(analyst, bus_atom_v, topics::analysis(id), wire::pack(requests[2]));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(reports(id), std::vector<int>{3});
  // A later request is analysed.
  auto next = wire::make_envelope(id, 0, wire::analysis_request{0, 4, 1});
  ASSERT_TRUE(rt->append(next));
  self->send(analyst, bus_atom_v, topics::analysis(id), wire::pack(next));
  while (reports(id).size() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(reports(id), (std::vector<int>{3, 4}));
  self->send_exit(analyst, caf::exit_reason::user_shutdown);
}

} // namespace
} // namespace paratune
