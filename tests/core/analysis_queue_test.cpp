#include <gtest/gtest.h>

#include "core/analysis_queue.hpp"

namespace paratune {
namespace {

TEST(analysis_queue, sessions_are_served_in_the_order_they_asked_one_at_a_time) {
  analysis_queue<std::string> q;
  EXPECT_EQ(q.push("a", 1, "a1"), analysis_admission::queued);
  EXPECT_EQ(q.push("b", 1, "b1"), analysis_admission::queued);
  EXPECT_EQ(q.push("c", 1, "c1"), analysis_admission::queued);
  // Two workers take two different sessions.
  EXPECT_EQ(q.take(), std::make_pair(std::string("a"), std::string("a1")));
  EXPECT_EQ(q.take(), std::make_pair(std::string("b"), std::string("b1")));
  EXPECT_EQ(q.running(), 2u);
  // a asks again while its analysis runs: it waits, c goes first.
  EXPECT_EQ(q.push("a", 2, "a2"), analysis_admission::queued);
  EXPECT_EQ(q.take(), std::make_pair(std::string("c"), std::string("c1")));
  EXPECT_EQ(q.take(), std::nullopt); // a's next waits for a's running one
  q.done("a");
  EXPECT_EQ(q.take(), std::make_pair(std::string("a"), std::string("a2")));
  EXPECT_EQ(q.waiting(), 0u);
  EXPECT_EQ(q.dropped(), 0u);
}

TEST(analysis_queue, a_superseded_request_is_never_handed_out) {
  analysis_queue<std::string> q;
  ASSERT_EQ(q.push("a", 1, "a1"), analysis_admission::queued);
  ASSERT_EQ(q.push("b", 4, "b4"), analysis_admission::queued);
  // a's request 2 replaces its request 1, which no worker ever sees; a keeps
  // its place in line.
  EXPECT_EQ(q.push("a", 2, "a2"), analysis_admission::replaced);
  // A re-ask under the same number (the session's quiet limit) replaces too.
  EXPECT_EQ(q.push("b", 4, "b4 again"), analysis_admission::replaced);
  // An older number arriving late is stale itself.
  EXPECT_EQ(q.push("a", 1, "a1 late"), analysis_admission::stale);
  EXPECT_EQ(q.dropped(), 3u);
  EXPECT_EQ(q.waiting(), 2u);
  EXPECT_EQ(q.take(), std::make_pair(std::string("a"), std::string("a2")));
  EXPECT_EQ(q.take(), std::make_pair(std::string("b"), std::string("b4 again")));
  EXPECT_EQ(q.take(), std::nullopt);
  q.done("a");
  q.done("b");
  EXPECT_EQ(q.take(), std::nullopt);
  EXPECT_EQ(q.running(), 0u);
}

TEST(analysis_queue, a_request_behind_a_running_one_is_replaced_while_it_waits) {
  analysis_queue<int> q;
  q.push("a", 1, 1);
  ASSERT_TRUE(q.take());
  EXPECT_EQ(q.push("a", 2, 2), analysis_admission::queued);
  EXPECT_EQ(q.push("a", 3, 3), analysis_admission::replaced);
  q.done("a");
  EXPECT_EQ(q.take(), std::make_pair(std::string("a"), 3));
  q.done("a");
  q.done("a"); // twice is harmless
  EXPECT_EQ(q.take(), std::nullopt);
}

TEST(analysis_verdict, a_worker_skips_a_superseded_request_and_resends_an_answered_one) {
  // The session asked again (request 5) after request 4 was queued.
  EXPECT_EQ(analysis_verdict_of(4, 5, false), analysis_verdict::superseded);
  EXPECT_EQ(analysis_verdict_of(4, 5, true), analysis_verdict::superseded);
  // A re-ask of 5 whose first copy was reported: the stored report again.
  EXPECT_EQ(analysis_verdict_of(5, 5, true), analysis_verdict::answered);
  EXPECT_EQ(analysis_verdict_of(5, 5, false), analysis_verdict::analyse);
  EXPECT_TRUE(supersedes(5, 5));
  EXPECT_TRUE(supersedes(6, 5));
  EXPECT_FALSE(supersedes(4, 5));
}

} // namespace
} // namespace paratune
