#include "core/storage_fault.hpp"

#include <gtest/gtest.h>

#include "core/session_state.hpp"

namespace paratune {
namespace {

TEST(storage_fault, a_full_disk_or_a_refusing_device_holds_a_running_sessions_write) {
  EXPECT_EQ(on_write_fault(storage_fault::no_space, write_origin::running_session),
            write_action::wait_and_retry);
  EXPECT_EQ(on_write_fault(storage_fault::io_error, write_origin::running_session),
            write_action::wait_and_retry);
}

TEST(storage_fault, a_new_session_on_a_full_disk_is_refused_at_once) {
  EXPECT_EQ(on_write_fault(storage_fault::no_space, write_origin::new_session),
            write_action::refuse);
  EXPECT_EQ(on_write_fault(storage_fault::io_error, write_origin::new_session),
            write_action::refuse);
}

TEST(storage_fault, damage_and_bad_requests_are_never_waited_for) {
  for (auto origin : {write_origin::running_session, write_origin::new_session}) {
    EXPECT_EQ(on_write_fault(storage_fault::damaged, origin), write_action::refuse);
    EXPECT_EQ(on_write_fault(storage_fault::other, origin), write_action::refuse);
    EXPECT_EQ(on_write_fault(storage_fault::none, origin), write_action::refuse);
  }
}

TEST(storage_fault, retries_back_off_from_a_quarter_second_to_five_seconds) {
  EXPECT_EQ(write_retry_delay(1).count(), 250);
  EXPECT_EQ(write_retry_delay(2).count(), 500);
  EXPECT_EQ(write_retry_delay(3).count(), 1000);
  EXPECT_EQ(write_retry_delay(5).count(), 4000);
  EXPECT_EQ(write_retry_delay(6).count(), 5000);
  EXPECT_EQ(write_retry_delay(1000).count(), 5000);
}

TEST(storage_fault, a_paused_session_has_not_ended) {
  EXPECT_FALSE(is_final(session_state::paused));
  EXPECT_STREQ(to_string(session_state::paused), "paused");
  session_state parsed = session_state::running;
  ASSERT_TRUE(parse_session_state("paused", parsed));
  EXPECT_EQ(parsed, session_state::paused);
}

} // namespace
} // namespace paratune
