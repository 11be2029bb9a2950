#include <gtest/gtest.h>

#include <limits>

#include "core/input_error.hpp"
#include "tests/fixtures/refusal.hpp"
#include "core/value_range.hpp"

namespace paratune {
namespace {

using test::refusal;

TEST(value_range, integers_parse_whole_and_in_range) {
  EXPECT_EQ(parse_integer("k", "42", {1, 100}), 42);
  EXPECT_EQ(parse_integer("k", "+7", {1, 100}), 7);
  EXPECT_EQ(parse_integer("k", "-3", {-5, 5}), -3);
  EXPECT_EQ(parse_integer("k", "9223372036854775807", {0, INT64_MAX}), INT64_MAX);
  EXPECT_EQ(refusal([] { parse_integer("k", "0", {1, 100}); }),
            "k: 0 is outside the allowed range 1..100");
  EXPECT_EQ(refusal([] { parse_integer("k", "9223372036854775808", {1, 100}); }),
            "k: '9223372036854775808' is outside the allowed range 1..100");
  for (const char* text : {"", "8.5", "0x8", "1e3", " 8", "8 ", "--8", "+", "eight"})
    EXPECT_EQ(refusal([&] { parse_integer("k", text, {1, 100}); }),
              std::string("k: expected an integer in 1..100, got '") + text + "'")
        << text;
}

TEST(value_range, binary_input_is_shown_cut_and_printable) {
  std::string junk("\x01\xff", 2);
  junk.append(60, 'a');
  EXPECT_EQ(refusal([&] { parse_integer("k", junk, {1, 2}); }),
            "k: expected an integer in 1..2, got '??" + std::string(38, 'a') + "...'");
}

TEST(value_range, reals_refuse_nan_infinity_and_out_of_range) {
  EXPECT_DOUBLE_EQ(parse_real("p", "0.25", 0, 1), 0.25);
  EXPECT_DOUBLE_EQ(parse_real("p", "1e-3", 0, 1), 0.001);
  EXPECT_EQ(refusal([] { parse_real("p", "nan", 0, 1); }), "p: nan is outside the allowed range 0..1");
  EXPECT_EQ(refusal([] { parse_real("p", "inf", 0, 1); }), "p: inf is outside the allowed range 0..1");
  EXPECT_EQ(refusal([] { parse_real("p", "2", 0, 1); }), "p: 2 is outside the allowed range 0..1");
  EXPECT_EQ(refusal([] { parse_real("p", "-0.5", 0, 1); }),
            "p: -0.5 is outside the allowed range 0..1");
  EXPECT_EQ(refusal([] { parse_real("p", "0.5x", 0, 1); }),
            "p: expected a number in 0..1, got '0.5x'");
}

TEST(value_range, products_refuse_overflow) {
  EXPECT_EQ(checked_product("world", {1 << 20, 1 << 20, 1 << 20}), int64_t(1) << 60);
  EXPECT_EQ(refusal([] { checked_product("world", {int64_t(1) << 32, int64_t(1) << 32}); }),
            "world: the product of its factors overflows 64 bits");
}

} // namespace
} // namespace paratune
