// How `paratune ask` reads a question: its topic, the values a what-if
// holds fixed, the trial it names, and a follow-up read with its thread.

#include "core/question.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

using keep = std::map<std::string, std::string>;

TEST(question, topics_from_the_engineers_words) {
  EXPECT_EQ(read_question("Why this proposal first?", nullptr).topic, question_topic::why_first);
  EXPECT_EQ(read_question("Which configuration is fastest?", nullptr).topic,
            question_topic::best);
  EXPECT_EQ(read_question("What happened in trial 3?", nullptr).topic, question_topic::trial);
  EXPECT_EQ(read_question("What happened in trial 3?", nullptr).trial, 3);
  EXPECT_EQ(read_question("Why did #4 crash?", nullptr).topic, question_topic::failures);
  EXPECT_EQ(read_question("Why did #4 crash?", nullptr).trial, 4);
  EXPECT_EQ(read_question("Are you sure?", nullptr).topic, question_topic::sure);
  EXPECT_EQ(read_question("hello", nullptr).topic, question_topic::overview);
}

TEST(question, what_if_reads_the_values_held_fixed_in_every_spelling) {
  auto q = read_question("What if I keep TP 8?", nullptr);
  EXPECT_EQ(q.topic, question_topic::what_if);
  EXPECT_EQ(q.keep, (keep{{"tp", "8"}}));
  EXPECT_EQ(read_question("and if we stay with tp=4, pp=2", nullptr).keep,
            (keep{{"pp", "2"}, {"tp", "4"}}));
  EXPECT_EQ(read_question("What if tensor parallelism of 2 is kept?", nullptr).keep,
            (keep{{"tp", "2"}}));
  EXPECT_EQ(read_question("keep the micro batch size at 4", nullptr).keep, (keep{{"mbs", "4"}}));
  EXPECT_EQ(read_question("What if I keep recompute selective?", nullptr).keep,
            (keep{{"recompute", "selective"}}));
  // The job's fixed shape is not a what-if: gbs and seq are never held.
  EXPECT_TRUE(read_question("what if I keep gbs 512", nullptr).keep.empty());
}

TEST(question, a_follow_up_is_about_what_came_before) {
  const question_subject before{question_topic::what_if, {{"tp", "8"}}, 0};
  const auto sure = read_question("Are you sure?", &before);
  EXPECT_EQ(sure.topic, question_topic::sure);
  EXPECT_EQ(sure.keep, (keep{{"tp", "8"}}));
  const auto why = read_question("why?", &before);
  EXPECT_EQ(why.topic, question_topic::what_if);
  EXPECT_EQ(why.keep, (keep{{"tp", "8"}}));
  // A question with a subject of its own is not a follow-up.
  EXPECT_EQ(read_question("What happened in trial 2?", &before).topic, question_topic::trial);
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

TEST(question, why_not_names_the_values_that_were_not_tried) {
  const auto q = read_question("why not mbs 4?", nullptr);
  EXPECT_EQ(q.topic, question_topic::why_not);
  EXPECT_EQ(q.keep, (std::map<std::string, std::string>{{"mbs", "4"}}));
  EXPECT_EQ(read_question("Why did you never try tp=1?", nullptr).topic, question_topic::why_not);
  // Without a value it is not a why-not: "why not?" follows what came before.
  EXPECT_EQ(read_question("why not?", nullptr).topic, question_topic::overview);
  std::string word = "why_not";
  question_topic t = question_topic::overview;
  EXPECT_TRUE(parse_question_topic(word, t));
  EXPECT_EQ(t, question_topic::why_not);
}

} // namespace
} // namespace paratune
