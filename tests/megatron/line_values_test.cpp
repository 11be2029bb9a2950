// line_values packs a line's key/value pieces into one buffer; these tests
// pin down what it must keep: order, empty values, the tag, copies that
// outlive the source text, and the 64 KiB limit.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "adapters/megatron/line_values.hpp"
#include "adapters/megatron/piece_collector.hpp"

namespace paratune {
namespace {

using piece = line_values::value_type;

TEST(line_values, keeps_pieces_in_order_with_the_tag) {
  const std::string line = "2026-09-14 15:08:34|consumed samples: 360|lm loss: 1.0E+01|bare";
  const std::string_view v = line;
  const std::vector<piece> pieces{{v.substr(20, 16), v.substr(38, 3)},
                                  {v.substr(42, 7), v.substr(51, 7)},
                                  {v.substr(59, 4), {}}};
  line_values values;
  values.assign(v.substr(0, 19), pieces);
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values.tag(), "2026-09-14 15:08:34");
  EXPECT_EQ(values[0].first, "consumed samples");
  EXPECT_EQ(values[0].second, "360");
  EXPECT_EQ(values[1].first, "lm loss");
  EXPECT_EQ(values[1].second, "1.0E+01");
  EXPECT_EQ(values.at(2).first, "bare");
  EXPECT_EQ(values.at(2).second, "");
  EXPECT_THROW(values.at(3), std::out_of_range);
  std::vector<std::string> keys;
  for (const auto& [k, value] : values) keys.emplace_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"consumed samples", "lm loss", "bare"}));
}

TEST(line_values, a_copy_owns_its_text) {
  line_values copy;
  {
    std::string key = "elapsed time per iteration (ms)", value = "6928.0";
    const std::vector<piece> pieces{{key, value}};
    line_values values;
    values.assign({}, pieces);
    copy = values;
    key.assign(key.size(), 'x');  // the source text changes, then goes away
  }
  ASSERT_EQ(copy.size(), 1u);
  EXPECT_EQ(copy[0].first, "elapsed time per iteration (ms)");
  EXPECT_EQ(copy[0].second, "6928.0");
  EXPECT_EQ(copy.tag(), "");
}

TEST(line_values, reassigning_replaces_everything) {
  line_values values;
  const std::vector<piece> two{{"a", "1"}, {"b", "2"}};
  values.assign("stamp", two);
  const std::vector<piece> one{{"c", "3"}};
  values.assign({}, one);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].first, "c");
  EXPECT_EQ(values.tag(), "");
}

TEST(line_values, pieces_past_64_kib_are_dropped_whole) {
  const std::string big(40000, 'k');
  const std::vector<piece> pieces{{"first", "1"}, {big, "2"}, {big, "3"}};
  line_values values;
  values.assign({}, pieces);
  ASSERT_EQ(values.size(), 2u);  // the third would pass 65,535 bytes
  EXPECT_EQ(values[1].first.size(), 40000u);
  EXPECT_EQ(values[1].second, "2");
}

TEST(piece_collector, spills_past_its_stack_room_in_order) {
  std::vector<std::string> keys;
  for (int i = 0; i < 60; ++i) keys.push_back("key" + std::to_string(i));
  piece_collector collector;
  for (const auto& k : keys) collector.add(k, "v");
  const auto pieces = collector.pieces();
  ASSERT_EQ(pieces.size(), 60u);
  EXPECT_EQ(pieces[0].first, "key0");
  EXPECT_EQ(pieces[47].first, "key47");
  EXPECT_EQ(pieces[59].first, "key59");
}

} // namespace
} // namespace paratune
