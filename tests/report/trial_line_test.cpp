// The live line of a finished trial counts the trials run against the
// budget, as the header, `sessions` and the report do; a skipped trial is
// numbered and spends none.

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
// spends none of the budget of 2: trials 2 and 3 run, as runs 1 and 2 of 2.
TEST(trial_line, a_skipped_trial_spends_no_budget_and_the_lines_count_the_trials_run) {
  trial_count count{2, {}};
  count.saw(1, trial_status::skipped);
  EXPECT_EQ(render_trial_line(row(1, trial_status::skipped, "Run the initial configuration.",
                                  "not launched: memory screen"),
                              count),
            "trial  1 (no budget)  skipped   Run the initial configuration.\n"
            "              why: not launched: memory screen\n");
  count.saw(2, trial_status::failed);
  EXPECT_EQ(render_trial_line(row(2, trial_status::failed, "Change TP from 1 to 2.", "exit status 1"),
                              count),
            "trial  2 (run 1/2)  failed    Change TP from 1 to 2.\n              why: exit status 1\n");
  count.saw(3, trial_status::failed);
  EXPECT_EQ(count.label(3), "trial  3 (run 2/2)");
}

TEST(trial_line, without_skips_a_trials_number_is_its_run_out_of_the_budget) {
  trial_count count{4, {}};
  EXPECT_EQ(count.label(1), "trial  1/4");
  EXPECT_EQ(count.label(4), "trial  4/4");
  EXPECT_EQ(count.run_number(4), 4);
  // A skip counts only for the trials numbered after it.
  count.saw(3, trial_status::skipped);
  EXPECT_EQ(count.label(2), "trial  2/4");
  EXPECT_EQ(count.run_number(5), 4);
  EXPECT_EQ(count.label(5), "trial  5 (run 4/4)");
  EXPECT_EQ(count.label(3, trial_status::skipped), "trial  3 (no budget)");
}

} // namespace
} // namespace paratune
