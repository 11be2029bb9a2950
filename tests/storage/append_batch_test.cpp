#include "storage/message_pool.hpp"

#include <filesystem>

#include <gtest/gtest.h>

#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "storage/history_service.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

wire::envelope telemetry(const std::string& session, int trial, int64_t iteration) {
  wire::telemetry t;
  t.trial = trial;
  t.iteration = iteration;
  t.elapsed_ms = 1000.0 + double(iteration);
  t.tflops_per_gpu = 180.5;
  return wire::make_envelope(session, trial, t);
}

std::vector<uint64_t> seqs_of(const std::vector<wire::envelope>& records) {
  std::vector<uint64_t> out;
  for (const auto& e : records)
    out.push_back(e.seq);
  return out;
}

class append_batch_test : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = test::make_temp_dir("pool-batch");
    auto opened = message_pool::open(dir_);
    ASSERT_TRUE(opened) << describe(opened.error());
    pool_ = std::move(*opened);
  }
  void TearDown() override {
    pool_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::unique_ptr<message_pool> pool_;
};

TEST_F(append_batch_test, numbers_a_batch_consecutively_after_single_appends) {
  ASSERT_EQ(*pool_->append(telemetry("s1", 1, 1)), 1u);
  std::vector<wire::envelope> batch{telemetry("s1", 1, 2), telemetry("s2", 1, 1),
                                    telemetry("s1", 2, 1)};
  auto range = pool_->append_batch(batch);
  ASSERT_TRUE(range) << describe(range.error());
  EXPECT_EQ(range->first, 2u);
  EXPECT_EQ(range->last, 4u);
  EXPECT_EQ(seqs_of(batch), (std::vector<uint64_t>{2, 3, 4}));
  EXPECT_EQ(pool_->next_seq(), 5u);
  EXPECT_EQ(*pool_->append(telemetry("s2", 1, 2)), 5u);

  auto s1 = pool_->session_history("s1");
  ASSERT_TRUE(s1);
  EXPECT_EQ(seqs_of(*s1), (std::vector<uint64_t>{1, 2, 4}));
  EXPECT_EQ(wire::body_of<wire::telemetry>((*s1)[2]).trial, 2);
  auto s2 = pool_->session_history("s2");
  ASSERT_TRUE(s2);
  EXPECT_EQ(seqs_of(*s2), (std::vector<uint64_t>{3, 5}));
}

TEST_F(append_batch_test, a_reopened_pool_continues_after_the_batch) {
  std::vector<wire::envelope> batch{telemetry("s1", 1, 1), telemetry("s1", 1, 2)};
  ASSERT_TRUE(pool_->append_batch(batch));
  pool_.reset();
  auto reopened = message_pool::open(dir_);
  ASSERT_TRUE(reopened);
  EXPECT_EQ((*reopened)->next_seq(), 3u);
}

TEST_F(append_batch_test, an_oversize_record_refuses_the_whole_batch) {
  ASSERT_EQ(*pool_->append(telemetry("s1", 1, 1)), 1u);
  auto big = telemetry("s1", 1, 3);
  big.body.assign(message_pool::max_record_bytes, 'x');
  std::vector<wire::envelope> batch{telemetry("s1", 1, 2), big, telemetry("s1", 1, 4)};
  auto range = pool_->append_batch(batch);
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error(), ec::bad_input);
  EXPECT_NE(describe(range.error()).find("record 1 of the batch has"), std::string::npos)
    << describe(range.error());
  EXPECT_EQ(seqs_of(batch), (std::vector<uint64_t>{0, 0, 0})); // the numbers were not given
  EXPECT_EQ(pool_->next_seq(), 2u);
  auto s1 = pool_->session_history("s1");
  ASSERT_TRUE(s1);
  EXPECT_EQ(seqs_of(*s1), (std::vector<uint64_t>{1})); // record 0 was not stored either
  EXPECT_EQ(*pool_->append(telemetry("s1", 1, 2)), 2u); // and no number was spent
}

TEST_F(append_batch_test, an_invalid_record_refuses_the_whole_batch) {
  auto no_type = telemetry("s1", 1, 2);
  no_type.type.clear();
  auto nul_session = telemetry(std::string("s\0x", 3), 1, 3);
  for (const auto& bad : {no_type, telemetry("", 1, 1), nul_session}) {
    std::vector<wire::envelope> batch{telemetry("s1", 1, 1), bad};
    auto range = pool_->append_batch(batch);
    ASSERT_FALSE(range);
    EXPECT_EQ(range.error(), ec::bad_input);
    EXPECT_NE(describe(range.error()).find("record 1 of the batch"), std::string::npos);
  }
  std::vector<wire::envelope> empty;
  EXPECT_FALSE(pool_->append_batch(empty));
  EXPECT_EQ(pool_->next_seq(), 1u);
  auto sessions = pool_->sessions();
  ASSERT_TRUE(sessions);
  EXPECT_TRUE(sessions->empty());
}

TEST_F(append_batch_test, a_page_is_capped_by_records_and_says_more) {
  std::vector<wire::envelope> batch;
  for (int i = 1; i <= 10; ++i)
    batch.push_back(telemetry(i % 2 ? "odd" : "even", 1, i)); // odd: seqs 1,3,5,7,9
  ASSERT_TRUE(pool_->append_batch(batch));
  auto first = pool_->session_page("odd", 0, 2, size_t(1) << 20);
  ASSERT_TRUE(first);
  EXPECT_EQ(seqs_of(first->records), (std::vector<uint64_t>{1, 3}));
  EXPECT_TRUE(first->more);
  auto next = pool_->session_page("odd", 3, 2, size_t(1) << 20);
  ASSERT_TRUE(next);
  EXPECT_EQ(seqs_of(next->records), (std::vector<uint64_t>{5, 7}));
  EXPECT_TRUE(next->more);
  auto last = pool_->session_page("odd", 7, 2, size_t(1) << 20);
  ASSERT_TRUE(last);
  EXPECT_EQ(seqs_of(last->records), (std::vector<uint64_t>{9}));
  EXPECT_FALSE(last->more);
  auto past = pool_->session_page("odd", 9, 2, size_t(1) << 20);
  ASSERT_TRUE(past);
  EXPECT_TRUE(past->records.empty());
  EXPECT_FALSE(past->more);
}

TEST_F(append_batch_test, a_page_is_capped_by_bytes_but_holds_at_least_one_record) {
  std::vector<wire::envelope> batch{telemetry("s1", 1, 1), telemetry("s1", 1, 2),
                                    telemetry("s1", 1, 3)};
  ASSERT_TRUE(pool_->append_batch(batch));
  const size_t one = wire::pack(batch[0]).size();
  auto tiny = pool_->session_page("s1", 0, 100, 1);
  ASSERT_TRUE(tiny);
  EXPECT_EQ(seqs_of(tiny->records), (std::vector<uint64_t>{1}));
  EXPECT_TRUE(tiny->more);
  auto two = pool_->session_page("s1", 0, 100, 2 * one + 1);
  ASSERT_TRUE(two);
  EXPECT_EQ(seqs_of(two->records), (std::vector<uint64_t>{1, 2}));
  EXPECT_TRUE(two->more);
}

TEST_F(append_batch_test, serve_history_answers_pages_and_refuses_what_it_cannot_serve) {
  std::vector<wire::envelope> batch;
  for (int i = 1; i <= 5; ++i)
    batch.push_back(telemetry("s1", 1, i));
  ASSERT_TRUE(pool_->append_batch(batch));

  control::request ask;
  ask.op = "history";
  ask.session = "s1";
  ask.after_seq = 1;
  ask.limit = 3;
  auto page = serve_history(*pool_, ask);
  ASSERT_TRUE(page.ok) << page.error;
  EXPECT_EQ(seqs_of(page.records), (std::vector<uint64_t>{2, 3, 4}));
  EXPECT_EQ(page.last_seq, 4u);
  EXPECT_TRUE(page.more);

  ask.after_seq = 4;
  ask.limit = 0; // the protocol's cap
  page = serve_history(*pool_, ask);
  ASSERT_TRUE(page.ok);
  EXPECT_EQ(seqs_of(page.records), (std::vector<uint64_t>{5}));
  EXPECT_EQ(page.last_seq, 5u);
  EXPECT_FALSE(page.more);

  ask.after_seq = 5;
  page = serve_history(*pool_, ask);
  ASSERT_TRUE(page.ok);
  EXPECT_TRUE(page.records.empty());
  EXPECT_EQ(page.last_seq, 5u); // the next page still starts after 5

  auto other = ask;
  other.op = "status";
  EXPECT_EQ(serve_history(*pool_, other).error, "'status' is not a history request");
  other = ask;
  other.session.clear();
  EXPECT_EQ(serve_history(*pool_, other).error, "a history request needs a session");
  other = ask;
  other.v = 2;
  EXPECT_FALSE(serve_history(*pool_, other).ok);
}

} // namespace
} // namespace paratune
