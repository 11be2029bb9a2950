// The live line of a finished trial: "trial N/T" never reads as a session
// past its budget when trials were skipped.

#include <gtest/gtest.h>

#include "report/session_summary.hpp"

namespace paratune {
namespace {

trial_row row(int index, trial_status status, const std::string& change, const std::string& why) {
  trial_row r;
  r.index = index;
  r.status = status;
  r.change = change;
  r.reason = why;
  return r;
}

// The initial configuration, refused by the memory screen, is trial 1 and
// spends none of the budget of 2: trials 2 and 3 run.
TEST(trial_line, a_skipped_trial_raises_the_count_instead_of_running_past_the_budget) {
  trial_count count{2};
  count.saw(trial_status::skipped);
  EXPECT_EQ(render_trial_line(row(1, trial_status::skipped, "Run the initial configuration.",
                                  "not launched: memory screen"),
                              count),
            "trial  1/3  skipped   Run the initial configuration.\n"
            "              why: not launched: memory screen\n");
  count.saw(trial_status::failed);
  EXPECT_EQ(render_trial_line(row(2, trial_status::failed, "Change TP from 1 to 2.", "exit status 1"),
                              count),
            "trial  2/3  failed    Change TP from 1 to 2.\n              why: exit status 1\n");
  count.saw(trial_status::failed);
  EXPECT_EQ(render_trial_line(row(3, trial_status::failed, "Change MBS from 1 to 2.", "oom"), count)
              .substr(0, 11),
            "trial  3/3 ");
}

TEST(trial_line, without_skips_the_count_is_the_budget_and_never_below_the_trials_number) {
  trial_count count{4};
  EXPECT_EQ(count.total(1), 4);
  EXPECT_EQ(count.total(4), 4);
  EXPECT_EQ(count.total(5), 5); // a skip the view has not seen yet
}

} // namespace
} // namespace paratune
