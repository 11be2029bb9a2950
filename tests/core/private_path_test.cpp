// The one check of the paths that must stay their owner's: the relay key,
// the daemon's state directory, `tune --db`'s pool.

#include <gtest/gtest.h>

#include "core/private_path.hpp"

namespace paratune {
namespace {

using kind = private_path_kind;
using verdict = private_path_verdict;

TEST(private_path, a_state_dir_others_may_write_is_refused_with_its_mode) {
  for (unsigned mode : {0777u, 0770u, 0707u, 0720u, 0702u, 01777u}) {
    const auto f = judge_private_path(kind::state_dir, 1000, 1000, mode);
    EXPECT_EQ(f.verdict, verdict::refuse) << octal_mode(mode);
    EXPECT_EQ(f.problem.rfind("has mode " + octal_mode(mode) + ": other users may write to it", 0),
              0u) << f.problem;
  }
}

TEST(private_path, a_state_dir_others_may_only_read_is_set_to_0700) {
  for (unsigned mode : {0755u, 0750u, 0705u, 0744u}) {
    const auto f = judge_private_path(kind::state_dir, 1000, 1000, mode);
    EXPECT_EQ(f.verdict, verdict::tighten) << octal_mode(mode);
    EXPECT_EQ(f.mode_after, 0700u);
    EXPECT_EQ(f.problem, "had mode " + octal_mode(mode) + ": other users could list it; set to 0700");
  }
}

TEST(private_path, a_private_state_dir_and_others_search_bit_alone_are_kept) {
  for (unsigned mode : {0700u, 0711u, 0701u, 0710u})
    EXPECT_EQ(judge_private_path(kind::state_dir, 1000, 1000, mode).verdict, verdict::ok)
      << octal_mode(mode);
}

TEST(private_path, another_users_path_is_refused_whatever_its_mode) {
  for (auto k : {kind::state_dir, kind::secret_file}) {
    const auto f = judge_private_path(k, 0, 65534, 0700);
    EXPECT_EQ(f.verdict, verdict::refuse);
    EXPECT_EQ(f.problem, "belongs to uid 0, not to this user (uid 65534)");
  }
}

TEST(private_path, a_secret_file_is_refused_for_any_bit_of_others_never_tightened) {
  EXPECT_EQ(judge_private_path(kind::secret_file, 7, 7, 0600).verdict, verdict::ok);
  EXPECT_EQ(judge_private_path(kind::secret_file, 7, 7, 0400).verdict, verdict::ok);
  for (unsigned mode : {0640u, 0604u, 0610u, 0601u}) {
    const auto f = judge_private_path(kind::secret_file, 7, 7, mode);
    EXPECT_EQ(f.verdict, verdict::refuse) << octal_mode(mode);
    EXPECT_EQ(f.problem, "can be read or written by other users (mode " + octal_mode(mode) + ")");
  }
}

TEST(private_path, modes_are_written_as_four_octal_digits) {
  EXPECT_EQ(octal_mode(0755), "0755");
  EXPECT_EQ(octal_mode(01777), "1777");
  EXPECT_EQ(octal_mode(040700), "0700");
}

} // namespace
} // namespace paratune
