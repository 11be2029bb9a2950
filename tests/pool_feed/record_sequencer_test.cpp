#include "adapters/pool_feed/record_sequencer.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

using verdict = record_sequencer::verdict;

constexpr uint64_t publisher = 0x51;
const std::string a = "telemetry.s1.1";
const std::string b = "telemetry.s1.2";

wire::envelope record(uint64_t seq, const std::string& session = "s1") {
  wire::envelope e;
  e.type = "telemetry";
  e.session = session;
  e.seq = seq;
  return e;
}

bus_sequence number(uint64_t n, uint64_t from = publisher) { return {from, n}; }

TEST(record_sequencer, delivers_an_unbroken_stream_and_drops_a_repeat) {
  record_sequencer seq;
  EXPECT_EQ(seq.offer_live(a, number(1), record(1)), verdict::deliver);
  EXPECT_EQ(seq.offer_live(a, number(2), record(3)), verdict::deliver);
  EXPECT_EQ(seq.offer_live(b, number(1), record(4)), verdict::deliver);
  EXPECT_EQ(seq.offer_live(a, number(3), record(6)), verdict::deliver);
  EXPECT_EQ(seq.offer_live(a, number(3), record(6)), verdict::duplicate);
  EXPECT_EQ(seq.resume_after(a), 6u);
  EXPECT_EQ(seq.resume_after(b), 4u);
  EXPECT_EQ(seq.streams(), 2u);
}

TEST(record_sequencer, a_skipped_number_recovers_from_the_last_delivery) {
  record_sequencer seq;
  ASSERT_EQ(seq.offer_live(a, number(1), record(1)), verdict::deliver);
  ASSERT_EQ(seq.offer_live(b, number(1), record(2)), verdict::deliver);
  // a's numbers 2 and 3 (pool 3 and 5) were dropped; number 4 is pool 7.
  EXPECT_EQ(seq.offer_live(a, number(4), record(7)), verdict::recover);
  EXPECT_EQ(seq.resume_after(a), 1u);
  // The pool's answer from 1: 2 (b's, delivered), 3 and 5 (a's), 6 (b's, lost too).
  EXPECT_FALSE(seq.offer_recovered(b, record(2), 1));
  EXPECT_TRUE(seq.offer_recovered(a, record(3), 1));
  EXPECT_TRUE(seq.offer_recovered(a, record(5), 1));
  EXPECT_TRUE(seq.offer_recovered(b, record(6), 1));
  // Then the message that revealed the hole, once.
  EXPECT_TRUE(seq.offer_recovered(a, record(7), seq.resume_after(a)));
  EXPECT_FALSE(seq.offer_recovered(a, record(7), seq.resume_after(a)));
  EXPECT_EQ(seq.offer_live(a, number(5), record(8)), verdict::deliver);
  // b's own next message skips a number; it recovers from 6, which it has.
  EXPECT_EQ(seq.offer_live(b, number(3), record(9)), verdict::recover);
  EXPECT_EQ(seq.resume_after(b), 6u);
}

TEST(record_sequencer, a_read_does_not_move_a_stream_past_records_it_did_not_read) {
  record_sequencer seq;
  ASSERT_EQ(seq.offer_live(b, number(1), record(2)), verdict::deliver);
  ASSERT_EQ(seq.offer_live(a, number(1), record(6)), verdict::deliver);
  ASSERT_EQ(seq.offer_live(a, number(3), record(10)), verdict::recover);
  // Read from 6: b's 8 may not be taken, b's own 4 (if it exists) was not read.
  EXPECT_FALSE(seq.offer_recovered(b, record(8), 6));
  EXPECT_TRUE(seq.offer_recovered(a, record(7), 6));
  EXPECT_EQ(seq.resume_after(b), 2u);
  // Once a read from the session's floor covered 0..9, b's records above 6 are safe.
  seq.covered("s1", 0, 9);
  EXPECT_EQ(seq.session_floor("s1"), 9u);
  EXPECT_TRUE(seq.offer_recovered(b, record(12), 9));
}

TEST(record_sequencer, the_floor_moves_only_from_a_read_that_started_at_or_below_it) {
  record_sequencer seq;
  seq.covered("s1", 3, 20); // started above floor 0: records 1..3 unread
  EXPECT_EQ(seq.session_floor("s1"), 0u);
  seq.covered("s1", 0, 20);
  EXPECT_EQ(seq.session_floor("s1"), 20u);
  seq.covered("s1", 15, 30);
  EXPECT_EQ(seq.session_floor("s1"), 30u);
  seq.covered("s1", 0, 25); // never moves back
  EXPECT_EQ(seq.session_floor("s1"), 30u);
  EXPECT_EQ(seq.session_floor("s2"), 0u);
}

TEST(record_sequencer, an_unknown_past_recovers) {
  record_sequencer seq;
  // First seen past number 1: its first messages may have been dropped.
  EXPECT_EQ(seq.offer_live(a, number(3), record(9)), verdict::recover);
  EXPECT_EQ(seq.resume_after(a), 0u);
  EXPECT_TRUE(seq.offer_recovered(a, record(4), 0));
  EXPECT_TRUE(seq.offer_recovered(a, record(9), seq.resume_after(a)));
  EXPECT_EQ(seq.offer_live(a, number(4), record(11)), verdict::deliver);
  // A restarted publisher numbers from 1 again.
  EXPECT_EQ(seq.offer_live(a, number(1, 0x77), record(14)), verdict::recover);
  // A stream first met in a recovery has no known number.
  ASSERT_TRUE(seq.offer_recovered(b, record(12), 0));
  EXPECT_EQ(seq.offer_live(b, number(2), record(15)), verdict::recover);
}

TEST(record_sequencer, a_failed_recovery_recovers_again_at_the_next_message) {
  record_sequencer seq;
  ASSERT_EQ(seq.offer_live(a, number(1), record(1)), verdict::deliver);
  ASSERT_EQ(seq.offer_live(a, number(3), record(5)), verdict::recover);
  seq.unsettle(a); // the pool's owner did not answer
  EXPECT_EQ(seq.offer_live(a, number(4), record(7)), verdict::recover);
  EXPECT_EQ(seq.resume_after(a), 1u);
}

TEST(record_sequencer, a_hole_near_the_floor_is_read_from_the_floor) {
  record_sequencer seq;
  ASSERT_EQ(seq.offer_live(a, number(1), record(40)), verdict::deliver);
  EXPECT_EQ(seq.recovery_start(a, "s1", 100), 0u);  // 40 above the floor 0: within reach
  EXPECT_EQ(seq.recovery_start(a, "s1", 10), 40u);  // out of reach: from the stream's own
  seq.covered("s1", 0, 50);
  EXPECT_EQ(seq.recovery_start(a, "s1", 10), 50u);  // the floor passed the stream
  EXPECT_EQ(seq.recovery_start(b, "s1", 0), 50u);   // a stream not seen yet
}

} // namespace
} // namespace paratune
