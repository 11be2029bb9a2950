// The validator's batches of output lines for "output.<sid>.<n>".
#include <gtest/gtest.h>

#include "actors/output_batch.hpp"

namespace paratune {
namespace {

TEST(output_batch, is_due_at_max_lines_and_numbers_lines_across_batches) {
  output_batch batch(7);
  EXPECT_FALSE(batch.take());
  for (size_t i = 1; i < output_batch::max_lines; ++i)
    EXPECT_FALSE(batch.add("line " + std::to_string(i)));
  EXPECT_TRUE(batch.add("line 64"));
  auto first = batch.take();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->trial, 7);
  EXPECT_EQ(first->first_line_no, 1);
  ASSERT_EQ(first->lines.size(), 64u);
  EXPECT_EQ(first->lines.back(), "line 64");
  EXPECT_FALSE(batch.add("line 65"));
  auto second = batch.take();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->first_line_no, 65);
  EXPECT_EQ(second->lines, std::vector<std::string>{"line 65"});
  EXPECT_FALSE(batch.take());
}

} // namespace
} // namespace paratune
