// The receiving side of a trial relay: lines in order and exactly once,
// whatever order and how often they arrive, with bounded memory.

#include <gtest/gtest.h>

#include "core/relay/relay_line_buffer.hpp"
#include "core/relay/relay_sequencer.hpp"

namespace paratune {
namespace {

using lines = std::vector<std::string>;

TEST(relay_sequencer, lines_in_order_are_delivered_at_once) {
  relay_sequencer s;
  lines ready;
  for (uint64_t i = 1; i <= 3; ++i)
    EXPECT_EQ(s.offer(i, "line " + std::to_string(i), ready), relay_sequencer::verdict::accepted);
  EXPECT_EQ(ready, (lines{"line 1", "line 2", "line 3"}));
  EXPECT_EQ(s.next(), 4u);
  EXPECT_TRUE(s.missing().empty());
  EXPECT_FALSE(s.complete());
  EXPECT_TRUE(s.end(3));
  EXPECT_TRUE(s.complete());
}

TEST(relay_sequencer, a_gap_holds_later_lines_and_names_the_missing_range) {
  relay_sequencer s;
  lines ready;
  s.offer(1, "a", ready);
  s.offer(4, "d", ready);
  s.offer(6, "f", ready);
  EXPECT_EQ(ready, (lines{"a"}));
  EXPECT_EQ(s.held(), 2u);
  EXPECT_EQ(s.missing(), (std::vector<seq_range>{{2, 3}, {5, 5}}));
  s.offer(3, "c", ready);
  s.offer(2, "b", ready);  // the fetched lines fill the first gap
  EXPECT_EQ(ready, (lines{"a", "b", "c", "d"}));
  EXPECT_EQ(s.missing(), (std::vector<seq_range>{{5, 5}}));
  s.offer(5, "e", ready);
  EXPECT_EQ(ready, (lines{"a", "b", "c", "d", "e", "f"}));
  EXPECT_EQ(s.delivered(), 6u);
}

TEST(relay_sequencer, a_duplicate_is_counted_and_never_delivered_twice) {
  relay_sequencer s;
  lines ready;
  s.offer(1, "a", ready);
  s.offer(3, "c", ready);
  EXPECT_EQ(s.offer(1, "a", ready), relay_sequencer::verdict::duplicate);  // delivered already
  EXPECT_EQ(s.offer(3, "c", ready), relay_sequencer::verdict::duplicate);  // held already
  s.offer(2, "b", ready);
  EXPECT_EQ(ready, (lines{"a", "b", "c"}));
  EXPECT_EQ(s.duplicates(), 2u);
}

TEST(relay_sequencer, a_late_arrival_after_its_fetch_is_a_duplicate) {
  relay_sequencer s;
  lines ready;
  s.offer(2, "b", ready);         // 1 lost on the bus (or joined late)
  EXPECT_EQ(s.missing(), (std::vector<seq_range>{{1, 1}}));
  s.offer(1, "a", ready);         // from the relay's buffer
  EXPECT_EQ(s.offer(1, "a", ready), relay_sequencer::verdict::duplicate);  // the bus, late
  EXPECT_EQ(ready, (lines{"a", "b"}));
}

TEST(relay_sequencer, the_end_reveals_a_lost_tail) {
  relay_sequencer s;
  lines ready;
  s.offer(1, "a", ready);
  s.offer(2, "b", ready);
  EXPECT_TRUE(s.missing().empty());  // 3 and 4 lost: not known yet
  EXPECT_TRUE(s.end(4));
  EXPECT_EQ(s.missing(), (std::vector<seq_range>{{3, 4}}));
  EXPECT_FALSE(s.complete());
  s.offer(3, "c", ready);
  s.offer(4, "d", ready);
  EXPECT_TRUE(s.complete());
  EXPECT_EQ(ready, (lines{"a", "b", "c", "d"}));
  // Nothing past the end is taken, and the end does not move.
  EXPECT_EQ(s.offer(5, "e", ready), relay_sequencer::verdict::refused);
  EXPECT_FALSE(s.end(7));
  EXPECT_TRUE(s.end(4));
}

TEST(relay_sequencer, an_end_below_what_was_taken_is_refused) {
  relay_sequencer s;
  lines ready;
  s.offer(1, "a", ready);
  s.offer(5, "e", ready);
  EXPECT_FALSE(s.end(3));
  EXPECT_FALSE(s.end_seq());
  EXPECT_FALSE(s.end(0));
}

TEST(relay_sequencer, an_empty_run_ends_at_zero) {
  relay_sequencer s;
  EXPECT_TRUE(s.end(0));
  EXPECT_TRUE(s.complete());
  EXPECT_TRUE(s.missing().empty());
}

TEST(relay_sequencer, hostile_numbers_are_refused_without_growing) {
  relay_sequencer s({.max_held = 3, .max_ahead = 100});
  lines ready;
  EXPECT_EQ(s.offer(0, "zero", ready), relay_sequencer::verdict::refused);
  EXPECT_EQ(s.offer(UINT64_MAX, "huge", ready), relay_sequencer::verdict::refused);
  EXPECT_EQ(s.offer(102, "just too far", ready), relay_sequencer::verdict::refused);
  EXPECT_EQ(s.offer(101, "far", ready), relay_sequencer::verdict::accepted);
  EXPECT_FALSE(s.end(UINT64_MAX));
  EXPECT_EQ(s.refused(), 3u);
  EXPECT_EQ(s.held(), 1u);
  EXPECT_TRUE(ready.empty());
}

TEST(relay_sequencer, the_held_lines_are_bounded_and_the_next_line_still_drains_them) {
  relay_sequencer s({.max_held = 2, .max_ahead = 1000});
  lines ready;
  EXPECT_EQ(s.offer(3, "c", ready), relay_sequencer::verdict::accepted);
  EXPECT_EQ(s.offer(4, "d", ready), relay_sequencer::verdict::accepted);
  EXPECT_EQ(s.offer(5, "e", ready), relay_sequencer::verdict::refused);  // full
  EXPECT_EQ(s.held(), 2u);
  EXPECT_EQ(s.offer(1, "a", ready), relay_sequencer::verdict::accepted);  // the next line
  EXPECT_EQ(s.offer(2, "b", ready), relay_sequencer::verdict::accepted);
  EXPECT_EQ(ready, (lines{"a", "b", "c", "d"}));
  EXPECT_EQ(s.missing(), std::vector<seq_range>{});
  EXPECT_EQ(s.offer(5, "e", ready), relay_sequencer::verdict::accepted);  // fetched again
  EXPECT_EQ(ready.back(), "e");
}

TEST(relay_sequencer, giving_up_delivers_the_held_lines_and_counts_the_lost) {
  relay_sequencer s;
  lines ready;
  s.offer(1, "a", ready);
  s.offer(4, "d", ready);
  s.end(6);
  s.skip_missing(ready);
  EXPECT_EQ(ready, (lines{"a", "d"}));
  EXPECT_EQ(s.lost(), 4u);  // 2, 3, 5, 6
  EXPECT_TRUE(s.complete());
}

TEST(relay_line_buffer, keeps_the_newest_lines_within_its_bounds) {
  relay_line_buffer b(3, 1000);
  for (int i = 1; i <= 5; ++i)
    EXPECT_EQ(b.append("line " + std::to_string(i)), uint64_t(i));
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.first_seq(), 3u);
  EXPECT_EQ(b.last_seq(), 5u);
  const auto r = b.range(1, 4, 100, 1000);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], (std::pair<uint64_t, std::string>{3, "line 3"}));
  EXPECT_EQ(r[1], (std::pair<uint64_t, std::string>{4, "line 4"}));
}

TEST(relay_line_buffer, a_reply_is_bounded_in_lines_and_bytes) {
  relay_line_buffer b(100, 100);
  for (int i = 0; i < 10; ++i)
    b.append(std::string(30, 'x'));  // 300 bytes: the oldest go
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.bytes(), 90u);
  EXPECT_EQ(b.range(1, 10, 2, 1000).size(), 2u);
  EXPECT_EQ(b.range(1, 10, 100, 40).size(), 1u);
  EXPECT_EQ(b.range(1, 10, 100, 10).size(), 1u);  // at least one line
  EXPECT_TRUE(b.range(11, 20, 100, 1000).empty());
  EXPECT_TRUE(b.range(9, 8, 100, 1000).empty());
}

TEST(relay_line_buffer, a_line_larger_than_the_byte_bound_is_still_the_newest) {
  relay_line_buffer b(10, 5);
  b.append("ab");
  b.append(std::string(20, 'y'));
  EXPECT_EQ(b.size(), 1u);
  EXPECT_EQ(b.first_seq(), 2u);
}

} // namespace
} // namespace paratune
