#include "core/text.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

TEST(text, changes_the_case_of_ascii_letters_only) {
  EXPECT_EQ(lower("Llama3-8B_v2"), "llama3-8b_v2");
  EXPECT_EQ(upper("fused_ce"), "FUSED_CE");
  // Bytes above 127 (UTF-8) pass through untouched.
  EXPECT_EQ(lower("\xc3\x84X"), "\xc3\x84x");
  EXPECT_EQ(lower(""), "");
}

TEST(text, trims_the_given_blanks_at_both_ends) {
  EXPECT_EQ(trim(" \ttp = 2\t "), "tp = 2");
  EXPECT_EQ(trim(" \t "), "");
  EXPECT_EQ(trim("a\r\n"), "a\r\n");  // by default only spaces and tabs
  EXPECT_EQ(trim("\r\n a b \r\n", " \t\r\n"), "a b");
}

TEST(text, splits_a_list_without_an_empty_last_item) {
  using v = std::vector<std::string>;
  EXPECT_EQ(split("tp=2, pp=1", ','), (v{"tp=2", " pp=1"}));
  EXPECT_EQ(split("a,,b", ','), (v{"a", "", "b"}));
  EXPECT_EQ(split("a,b,", ','), (v{"a", "b"}));
  EXPECT_EQ(split(",", ','), (v{""}));
  EXPECT_EQ(split("", ','), v{});
  EXPECT_EQ(join({"tp", "pp", "cp"}, ", "), "tp, pp, cp");
  EXPECT_EQ(join({}, ", "), "");
}

TEST(text, identifiers_and_plain_names) {
  EXPECT_TRUE(is_identifier("PARATUNE_JWT"));
  EXPECT_TRUE(is_identifier("_x1"));
  EXPECT_FALSE(is_identifier("1x"));
  EXPECT_FALSE(is_identifier("BAD NAME"));
  EXPECT_FALSE(is_identifier(""));
  EXPECT_TRUE(is_plain_name("llama3.1-405b", 64));
  EXPECT_FALSE(is_plain_name("a100; rm -rf ~", 64));
  EXPECT_FALSE(is_plain_name(std::string(65, 'a'), 64));
  EXPECT_FALSE(is_plain_name("", 64));
}

} // namespace
} // namespace paratune
