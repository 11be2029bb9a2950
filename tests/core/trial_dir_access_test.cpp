// Who may reach a Slurm trial's directory, and who gets it: the decisions
// behind "a trial directory is writable by the user its job runs as".

#include <gtest/gtest.h>

#include "core/trial_dir_access.hpp"

namespace paratune {
namespace {

const unix_user slurmrest{"slurmrest", 999, 995, {995}};
const unix_user alice{"alice", 1000, 1000, {1000, 27}};

TEST(trial_dir_access, the_owner_group_and_others_bits_decide_in_the_kernels_order) {
  EXPECT_TRUE(may_search({"/srv", 0, 0, 0755}, slurmrest));
  EXPECT_FALSE(may_search({"/var/lib/paratune", 0, 0, 0700}, slurmrest));
  EXPECT_TRUE(may_search({"/var/lib/paratune", 0, 0, 0700}, {"root", 0, 0, {}}));
  EXPECT_TRUE(may_search({"/shared/team", 0, 27, 0750}, alice));   // a supplementary group
  EXPECT_FALSE(may_search({"/shared/team", 0, 27, 0750}, slurmrest));
  // The owner's own bits decide for the owner, even when others may pass.
  EXPECT_FALSE(may_search({"/home/alice/closed", 1000, 1000, 0075}, alice));
}

TEST(trial_dir_access, the_first_directory_the_jobs_user_cannot_pass_is_named) {
  const std::vector<dir_stat> chain = {{"/", 0, 0, 0755},
                                       {"/var", 0, 0, 0755},
                                       {"/var/lib/paratune", 0, 0, 0700},
                                       {"/var/lib/paratune/trials", 0, 0, 0755}};
  const auto closed = first_closed(chain, slurmrest);
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->path, "/var/lib/paratune");
  EXPECT_EQ(closed->mode, 0700u);
  EXPECT_FALSE(first_closed({{"/", 0, 0, 0755}, {"/shared", 0, 0, 0711}}, slurmrest));
}

TEST(trial_dir_access, root_hands_the_directory_to_another_user_and_no_one_else_can) {
  EXPECT_EQ(trial_dir_owner_for(999, 0), trial_dir_owner::job_user);
  EXPECT_EQ(trial_dir_owner_for(1000, 1000), trial_dir_owner::paratune);
  EXPECT_EQ(trial_dir_owner_for(0, 0), trial_dir_owner::paratune);
  EXPECT_EQ(trial_dir_owner_for(999, 1000), trial_dir_owner::refused);
  EXPECT_EQ(trial_dir_mode, 0700u);
  EXPECT_EQ(shared_session_dir_mode, 0711u);
}

} // namespace
} // namespace paratune
