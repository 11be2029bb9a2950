// Which connections the dashboard sheds: deadlines, the per-peer bound, the
// total bound, and the owner's connections kept from other peers.

#include <gtest/gtest.h>

#include "core/http_connection_table.hpp"

namespace paratune {
namespace {

using namespace std::chrono_literals;
using table = http_connection_table;
using shed = table::shed;

const auto t0 = table::clock::time_point{} + 1000s;
const auto owner = http_peer::local_user(1000);
const auto other = http_peer::local_user(65534);

http_connection_limits limits(std::size_t per_peer, std::size_t total) {
  http_connection_limits l;
  l.request_deadline = 10s;
  l.answer_deadline = 5s;
  l.per_peer = per_peer;
  l.total = total;
  return l;
}

TEST(http_connection_table, a_request_not_whole_within_its_deadline_is_shed_once) {
  table t(limits(8, 16), owner);
  EXPECT_TRUE(t.opened(1, other, t0).empty());
  EXPECT_TRUE(t.opened(2, other, t0 + 3s).empty());
  EXPECT_EQ(t.next_deadline(), t0 + 10s);
  EXPECT_TRUE(t.expired(t0 + 9999ms).empty());
  EXPECT_EQ(t.expired(t0 + 10s), (std::vector<shed>{{1, shed_reason::deadline}}));
  EXPECT_TRUE(t.expired(t0 + 11s).empty()); // named once
  EXPECT_EQ(t.open(), 1u);
  EXPECT_EQ(t.next_deadline(), t0 + 13s);
  t.closed(1);
  EXPECT_EQ(t.open(), 1u);
  EXPECT_EQ(t.open_of(other), 1u);
}

TEST(http_connection_table, an_answer_has_its_own_deadline_and_the_next_request_a_fresh_one) {
  table t(limits(8, 16), owner);
  t.opened(1, owner, t0);
  t.request_arrived(1, t0 + 9s);
  EXPECT_EQ(t.next_deadline(), t0 + 14s);
  EXPECT_TRUE(t.expired(t0 + 13s).empty());
  t.answer_sent(1, t0 + 13s);
  EXPECT_EQ(t.next_deadline(), t0 + 23s);
  EXPECT_EQ(t.expired(t0 + 23s), (std::vector<shed>{{1, shed_reason::deadline}}));
}

TEST(http_connection_table, over_its_bound_a_peer_loses_its_oldest_waiting_connection) {
  table t(limits(3, 100), owner);
  t.opened(1, other, t0);
  t.opened(2, other, t0);
  t.opened(3, other, t0);
  t.request_arrived(1, t0); // being answered: kept
  EXPECT_TRUE(t.opened(10, owner, t0).empty()); // another peer's count is its own
  EXPECT_EQ(t.opened(4, other, t0), (std::vector<shed>{{2, shed_reason::peer_bound}}));
  EXPECT_EQ(t.open_of(other), 3u);
  EXPECT_EQ(t.opened(5, other, t0), (std::vector<shed>{{3, shed_reason::peer_bound}}));
  t.request_arrived(4, t0);
  t.request_arrived(5, t0);
  // Every older one is being answered: the new one goes.
  EXPECT_EQ(t.opened(6, other, t0), (std::vector<shed>{{6, shed_reason::peer_bound}}));
  EXPECT_EQ(t.open_of(other), 3u);
  EXPECT_EQ(t.open_of(owner), 1u);
}

TEST(http_connection_table, over_the_total_the_largest_peer_gives_way_never_the_owner_to_another) {
  table t(limits(4, 6), owner);
  const auto third = http_peer::remote("10.0.0.7");
  for (table::id i = 1; i <= 4; ++i)
    EXPECT_TRUE(t.opened(i, owner, t0).empty());
  EXPECT_TRUE(t.opened(5, other, t0).empty());
  EXPECT_TRUE(t.opened(6, third, t0).empty());
  // The owner holds the most, but another peer's connection sheds another
  // peer's: the oldest of the largest of them.
  EXPECT_EQ(t.opened(7, other, t0), (std::vector<shed>{{5, shed_reason::total_bound}}));
  EXPECT_EQ(t.open_of(owner), 4u);
  // The owner past its own bound sheds its own oldest.
  EXPECT_EQ(t.opened(8, owner, t0), (std::vector<shed>{{1, shed_reason::peer_bound}}));
  t.closed(1);
  t.closed(5);
  EXPECT_EQ(t.open(), 6u);
  // Past the total again, the largest peer but the owner is the new one's
  // own: it gives its oldest.
  EXPECT_EQ(t.opened(9, third, t0), (std::vector<shed>{{6, shed_reason::total_bound}}));
  EXPECT_EQ(t.open(), 6u);
  EXPECT_EQ(t.open_of(owner), 4u);
  EXPECT_EQ(t.open_of(third), 1u);
}

TEST(http_connection_table, the_peers_are_told_apart_by_user_on_the_loopback_and_by_address_beyond) {
  EXPECT_NE(http_peer::local_user(0), http_peer::remote("127.0.0.1"));
  EXPECT_EQ(http_peer::local_user(7), http_peer::local_user(7));
  EXPECT_EQ(http_peer::local_user(7).describe(), "uid 7");
  EXPECT_EQ(http_peer::remote("10.0.0.7").describe(), "10.0.0.7");
  EXPECT_STREQ(to_string(shed_reason::peer_bound), "peer_bound");
}

} // namespace
} // namespace paratune
