// core/secret_redactor: a secret's value replaced wherever it shows, and
// nothing else touched.

#include <gtest/gtest.h>

#include "core/secret_redactor.hpp"

namespace paratune {
namespace {

TEST(secret_redactor, replaces_every_occurrence_of_each_value) {
  const secret_redactor r({"sk-live-4f2a9c", "eyJhbGciOiJIUzI1NiJ9.e30.c2ln"});
  EXPECT_EQ(r.size(), 2u);
  EXPECT_EQ(r.redact("OPENAI_API_KEY=sk-live-4f2a9c"), "OPENAI_API_KEY=[redacted]");
  EXPECT_EQ(r.redact("a sk-live-4f2a9c b sk-live-4f2a9c"), "a [redacted] b [redacted]");
  EXPECT_EQ(r.redact("jwt eyJhbGciOiJIUzI1NiJ9.e30.c2ln, key sk-live-4f2a9c."),
            "jwt [redacted], key [redacted].");
  EXPECT_EQ(r.redact("sk-live-4f2a9csk-live-4f2a9c"), "[redacted][redacted]");
  EXPECT_EQ(r.redact("nothing secret here: sk-live-4f2a"), "nothing secret here: sk-live-4f2a");
  EXPECT_EQ(r.redact(""), "");
}

TEST(secret_redactor, short_and_repeated_values_are_dropped) {
  // "true" and "1234567" (7 bytes) would blank ordinary words and numbers.
  const secret_redactor r({"true", "1234567", "12345678", "12345678", ""});
  EXPECT_EQ(r.size(), 1u);
  EXPECT_EQ(r.redact("true 1234567 12345678"), "true 1234567 [redacted]");
  EXPECT_TRUE(secret_redactor({"short"}).empty());
  EXPECT_EQ(secret_redactor().redact("PATH=/usr/bin"), "PATH=/usr/bin");
}

TEST(secret_redactor, the_longer_of_two_values_starting_at_one_place_is_hidden_whole) {
  // A token that extends another: the tail of the longer must not survive.
  const secret_redactor r({"abcdefgh", "abcdefgh-ijkl"});
  EXPECT_EQ(r.redact("x abcdefgh-ijkl y abcdefgh z"), "x [redacted] y [redacted] z");
  // Overlapping, the earlier start wins and the rest of the text is kept.
  const secret_redactor o({"aaaa-bbbb", "bbbb-cccc"});
  EXPECT_EQ(o.redact("aaaa-bbbb-cccc"), "[redacted]-cccc");
}

} // namespace
} // namespace paratune
