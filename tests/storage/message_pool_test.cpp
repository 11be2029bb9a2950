#include "storage/message_pool.hpp"

#include <csignal>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "storage/rocks_db.hpp"

#include <rocksdb/db.h>
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

class message_pool_test : public ::testing::Test {
protected:
  void SetUp() override { dir_ = test::make_temp_dir("pool"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<message_pool> open_pool() {
    auto pool = message_pool::open(dir_);
    EXPECT_TRUE(pool) << (pool ? "" : to_string(pool.error()));
    return pool ? std::move(*pool) : nullptr;
  }

  static wire::envelope result(const std::string& session, int trial, double tflops) {
    wire::trial_result r;
    r.trial = trial;
    r.status = trial_status::succeeded;
    r.tflops_per_gpu = tflops;
    r.config = {{"tp", "2"}, {"pp", "1"}};
    return wire::make_envelope(session, trial, r);
  }

  std::string dir_;
};

TEST_F(message_pool_test, appends_and_reads_back_in_order_after_reopen) {
  {
    auto pool = open_pool();
    ASSERT_TRUE(pool);
    EXPECT_EQ(*pool->append(result("s1", 1, 100)), 1u);
    EXPECT_EQ(*pool->append(result("s2", 1, 50)), 2u);
    EXPECT_EQ(*pool->append(result("s1", 2, 120)), 3u);
    EXPECT_EQ(*pool->append(result("s1", 3, 130)), 4u);
  }
  auto pool = open_pool(); // continues the existing pool
  ASSERT_TRUE(pool);
  EXPECT_EQ(pool->next_seq(), 5u);
  auto history = pool->session_history("s1");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ((*history)[0].seq, 1u);
  EXPECT_EQ((*history)[1].seq, 3u);
  EXPECT_EQ((*history)[2].seq, 4u);
  auto third = wire::body_of<wire::trial_result>((*history)[2]);
  EXPECT_EQ(third.trial, 3);
  EXPECT_DOUBLE_EQ(third.tflops_per_gpu, 130);
  EXPECT_EQ(third.config.at("tp"), "2");
  EXPECT_EQ(*pool->append(result("s2", 2, 60)), 5u);
  auto sessions = pool->sessions();
  ASSERT_TRUE(sessions);
  EXPECT_EQ(*sessions, (std::vector<std::string>{"s1", "s2"}));
}

TEST_F(message_pool_test, each_record_names_its_sessions_record_before_it) {
  {
    auto pool = open_pool();
    ASSERT_TRUE(pool);
    const auto first = pool->append_record(result("s1", 1, 100));
    ASSERT_TRUE(first);
    EXPECT_EQ(first->seq, 1u);
    EXPECT_EQ(first->prev_seq, 0u);
    ASSERT_TRUE(pool->append(result("s2", 1, 50)));  // 2
    ASSERT_TRUE(pool->append(result("s1", 2, 120))); // 3
    ASSERT_TRUE(pool->append(result("abc", 1, 1)));  // 4
    ASSERT_TRUE(pool->append(result("s1", 3, 130))); // 5
  }
  auto pool = open_pool(); // found again from the index after a restart
  const auto next = pool->append_record(result("s2", 2, 60));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->seq, 6u);
  EXPECT_EQ(next->prev_seq, 2u);
  // A batch chains within itself and onto what was stored.
  std::vector<wire::envelope> batch{result("s1", 4, 1), result("s3", 1, 1), result("s1", 5, 1)};
  ASSERT_TRUE(pool->append_batch(batch));
  EXPECT_EQ(batch[0].prev_seq, 5u);
  EXPECT_EQ(batch[1].prev_seq, 0u);
  EXPECT_EQ(batch[2].prev_seq, 7u);
  // What a read returns carries the same chain.
  const auto history = pool->session_history("s1");
  ASSERT_TRUE(history);
  std::vector<std::pair<uint64_t, uint64_t>> chain;
  for (const auto& e : *history)
    chain.emplace_back(e.seq, e.prev_seq);
  EXPECT_EQ(chain, (std::vector<std::pair<uint64_t, uint64_t>>{
                     {1, 0}, {3, 1}, {5, 3}, {7, 5}, {9, 7}}));
  ASSERT_TRUE(pool->append(result("abcd", 1, 1)));
  EXPECT_EQ(pool->append_record(result("abc", 2, 1))->prev_seq, 4u); // not abcd's 10
}

TEST_F(message_pool_test, session_prefix_does_not_leak_into_longer_ids) {
  auto pool = open_pool();
  ASSERT_TRUE(pool->append(result("abc", 1, 1)));
  ASSERT_TRUE(pool->append(result("abcd", 1, 2)));
  EXPECT_EQ(pool->session_history("abc")->size(), 1u);
  EXPECT_EQ(pool->session_history("abcd")->size(), 1u);
  EXPECT_EQ(pool->session_history("ab")->size(), 0u);
}

TEST_F(message_pool_test, reads_a_session_from_after_a_sequence_number) {
  auto pool = open_pool();
  for (int i = 1; i <= 6; ++i)
    ASSERT_TRUE(pool->append(result(i % 2 ? "odd" : "even", i, i)));  // seqs 1..6
  const auto after3 = pool->session_history("odd", 3);  // odd has seqs 1, 3, 5
  ASSERT_TRUE(after3);
  ASSERT_EQ(after3->size(), 1u);
  EXPECT_EQ((*after3)[0].seq, 5u);
  EXPECT_EQ(pool->session_history("odd", 0)->size(), 3u);
  EXPECT_EQ(pool->session_history("odd", 2)->size(), 2u);
  EXPECT_EQ(pool->session_history("odd", 5)->size(), 0u);
  EXPECT_EQ(pool->session_history("even", 5)->front().seq, 6u);
  EXPECT_EQ(pool->session_history("odd", 1000)->size(), 0u);
}

TEST_F(message_pool_test, indexes_the_latest_record_of_each_trial) {
  auto pool = open_pool();
  wire::trial_started st;
  st.trial = 7;
  ASSERT_TRUE(pool->append(wire::make_envelope("s", 7, st)));
  auto latest = pool->latest_trial_record("s", 7);
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->type, "trial_started");
  ASSERT_TRUE(pool->append(result("s", 7, 99)));
  latest = pool->latest_trial_record("s", 7);
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->type, "trial_result");
  EXPECT_FALSE(pool->latest_trial_record("s", 8));
}

TEST_F(message_pool_test, a_second_writer_is_refused_with_a_clear_error) {
  auto pool = open_pool();
  auto second = message_pool::open(dir_);
  ASSERT_FALSE(second);
  EXPECT_NE(to_string(second.error()).find("cannot open message pool"), std::string::npos);
}

TEST_F(message_pool_test, the_schema_version_is_written_at_creation_and_checked_at_open) {
  open_pool()->append(result("s", 1, 100.0));
  {
    // The meta column family, read and altered behind the pool's back.
    auto store = rocks_db::open(dir_, {"default", "meta", "records", "by_session", "trials"},
                                "pool");
    ASSERT_TRUE(store);
    std::string version;
    ASSERT_TRUE((*store)->db()->Get({}, (*store)->column(1), "schema_version", &version).ok());
    EXPECT_EQ(version, "1");
    ASSERT_TRUE((*store)->db()->Put({}, (*store)->column(1), "schema_version", "99").ok());
  }
  auto reopened = message_pool::open(dir_);
  ASSERT_FALSE(reopened);
  EXPECT_EQ(describe(reopened.error()), "storage failure: message pool at " + dir_
                                          + " has schema version 99, this build reads 1");
}

// A child process appends as fast as it can and is killed with SIGKILL at an
// arbitrary moment. Every record that survived must be whole: decodable,
// indexed by its session, and counted by next_seq.
TEST_F(message_pool_test, crash_between_writes_leaves_no_half_record) {
  for (int round = 0; round < 3; ++round) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto pool = message_pool::open(dir_);
      if (!pool)
        _exit(3);
      for (int i = 1;; ++i)
        (*pool)->append(result("crash", i, i));
    }
    usleep(150000 + round * 70000);
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited early with " << status;
  }
  auto pool = open_pool();
  ASSERT_TRUE(pool);
  auto history = pool->session_history("crash");
  ASSERT_TRUE(history) << to_string(history.error());
  ASSERT_GT(history->size(), 10u);
  EXPECT_EQ(pool->next_seq(), history->size() + 1);
  for (size_t i = 0; i < history->size(); ++i) {
    EXPECT_EQ((*history)[i].seq, i + 1);
    EXPECT_NO_THROW(wire::body_of<wire::trial_result>((*history)[i]));
  }
}

} // namespace
} // namespace paratune
