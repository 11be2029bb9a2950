// Session ids: never one for two sessions. The random part is 16 bits, so a
// daemon taking 50 submits in one second drew an id twice about once in 50
// bursts; the two sessions then wrote one history, and the one the index
// kept hid the other (the daemon crash test's uninterrupted run waited on
// it for 240 s in CI).

#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "actors/runtime.hpp"
#include "messages/conversions.hpp"
#include "tests/fixtures/runtime_test.hpp"

namespace paratune {
namespace {

struct session_id : test::runtime_test {
  session_id() { tuning_agents = false; }
};

TEST(session_id_draw, draws_again_while_the_id_is_taken) {
  std::vector<std::string> asked;
  const auto id = new_session_id([&](const std::string& candidate) {
    asked.push_back(candidate);
    return asked.size() < 4; // the first three are in use
  });
  ASSERT_EQ(asked.size(), 4u);
  EXPECT_EQ(id, asked.back());
  EXPECT_TRUE(std::regex_match(id, std::regex("s\\d{8}T\\d{6}-[0-9a-f]{4}"))) << id;
}

TEST_F(session_id, thousands_claimed_within_seconds_are_all_different) {
  // 3,000 draws of 16 bits within a few seconds: about 69 pairs would share
  // an id if nothing checked (n^2 / 2 / 65,536 per second of draws).
  std::set<std::string> seen;
  for (int i = 0; i < 3000; ++i) {
    auto id = rt->claim_session_id();
    ASSERT_TRUE(id) << to_string(id.error());
    EXPECT_TRUE(seen.insert(*id).second) << "claimed twice: " << *id;
  }
  EXPECT_EQ(seen.size(), 3000u);
}

TEST_F(session_id, claims_from_concurrent_threads_are_all_different) {
  // The daemon's control lanes submit at once.
  std::vector<std::vector<std::string>> ids(3);
  std::vector<std::thread> lanes;
  for (auto& out : ids)
    lanes.emplace_back([&] {
      for (int i = 0; i < 1000; ++i)
        if (auto id = rt->claim_session_id())
          out.push_back(*id);
    });
  for (auto& t : lanes)
    t.join();
  std::set<std::string> all;
  for (const auto& lane : ids) {
    EXPECT_EQ(lane.size(), 1000u);
    all.insert(lane.begin(), lane.end());
  }
  EXPECT_EQ(all.size(), 3000u);
}

TEST_F(session_id, an_id_the_pool_holds_is_in_use_for_a_runtime_that_never_claimed_it) {
  // A session stored by an earlier process: the runtime that starts next
  // has claimed nothing, and must still not hand its id out.
  const std::string earlier = "s20261128T120000-ab12";
  auto claimed = rt->claim_session_id();
  ASSERT_TRUE(claimed);
  ASSERT_TRUE(rt->append(wire::make_envelope(earlier, 0, wire::session_status{})));
  EXPECT_EQ(rt->session_id_in_use(earlier), caf::expected<bool>(true));
  EXPECT_EQ(rt->session_id_in_use(*claimed), caf::expected<bool>(true)); // claimed, not stored
  rt->stop();
  rt.reset();
  runtime_options opts{dir + "/pool", ep, true, false};
  opts.tuning_agents = false;
  auto again = runtime::start(*sys, opts);
  ASSERT_TRUE(again) << to_string(again.error());
  rt = std::move(*again);
  EXPECT_EQ(rt->session_id_in_use(earlier), caf::expected<bool>(true));
  EXPECT_EQ(rt->session_id_in_use(*claimed), caf::expected<bool>(false)); // never stored
  EXPECT_EQ(rt->session_id_in_use("s20261128T120000-ab13"), caf::expected<bool>(false));
}

} // namespace
} // namespace paratune
