// Storage faults on real parts: a full tmpfs, bytes flipped in the pool's
// write-ahead log and in a table file. Every fault is an error naming what
// happened, nothing stored is dropped without a word, and the damaged files
// stay where `pool repair` copied them.

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "storage/message_pool.hpp"
#include "storage/pool_check.hpp"
#include "storage/rocks_db.hpp"
#include "storage/rocks_log.hpp"
#include "tests/fixtures/file_damage.hpp"
#include "tests/fixtures/small_disk.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

/// A trial result of about `pad` bytes packed.
wire::envelope padded_result(const std::string& session, int trial, size_t pad) {
  wire::trial_result r;
  r.trial = trial;
  r.status = trial_status::succeeded;
  r.tflops_per_gpu = 100 + trial;
  r.config = {{"tp", "2"}, {"pad", std::string(pad, 'p')}};
  return wire::make_envelope(session, trial, r);
}

/// `count` records of `session`, trials first_trial.., each about `pad` bytes.
void append_padded(message_pool& pool, const std::string& session, int count, size_t pad) {
  for (int t = 1; t <= count; ++t)
    ASSERT_TRUE(pool.append(padded_result(session, t, pad)));
}

message_pool::options read_only_options() {
  message_pool::options o;
  o.read_only = true;
  return o;
}

class pool_faults_test : public ::testing::Test {
protected:
  void SetUp() override { dir_ = test::make_temp_dir("pool-faults"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST(rocks_log, reads_the_bytes_rocksdb_dropped_from_a_damaged_log) {
  const auto d = parse_dropped_log_bytes(
    "[WARN] [db/db_impl/db_impl_open.cc:982] (ignoring error) /tmp/p/000004.log: dropping "
    "29647 bytes; Corruption: checksum mismatch");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->file, "000004.log");
  EXPECT_EQ(d->bytes, 29647u);
  EXPECT_EQ(d->reason, "Corruption: checksum mismatch");
  EXPECT_FALSE(parse_dropped_log_bytes("[WARN] Background IO error"));
}

TEST(rocks_log, sums_the_bytes_dropped_from_each_log) {
  const auto dropped = dropped_log_bytes_of(
    {"[WARN] x /p/000004.log: dropping 100 bytes; Corruption: checksum mismatch",
     "[WARN] x /p/000004.log: dropping 10 bytes; Corruption: missing start of fragmented record(2)",
     "[WARN] another line",
     "[WARN] x /p/000009.log: dropping 7 bytes; Corruption: checksum mismatch"});
  ASSERT_EQ(dropped.size(), 2u);
  EXPECT_EQ(dropped[0].file, "000004.log");
  EXPECT_EQ(dropped[0].bytes, 110u);
  EXPECT_EQ(dropped[0].reason,
            "Corruption: checksum mismatch; Corruption: missing start of fragmented record(2)");
  EXPECT_EQ(dropped[1].file, "000009.log");
  EXPECT_EQ(dropped[1].bytes, 7u);
}

TEST(pool_disk_full, a_full_disk_refuses_the_write_keeps_reads_and_writes_again_once_freed) {
  test::small_disk disk{16};
  PARATUNE_SKIP_UNLESS_MOUNTED(disk);
  // Leave 1 MiB: RocksDB cannot reserve its log's 4 MiB ahead, so the disk
  // fills under the pool's own writes.
  disk.fill("filler", 1 << 20);
  const auto dir = disk.path() + "/pool";
  auto opened = message_pool::open(dir);
  ASSERT_TRUE(opened) << to_string(opened.error());
  auto& pool = **opened;
  int stored = 0;
  caf::error refusal;
  for (int t = 1; t <= 2000 && !refusal; ++t) {
    auto seq = pool.append(padded_result("alpha", t, 2000));
    if (seq)
      ++stored;
    else
      refusal = seq.error();
  }
  ASSERT_TRUE(refusal) << "2000 records of 2 KB fit in 1 MiB";
  EXPECT_EQ(fault_of(refusal), storage_fault::no_space);
  EXPECT_NE(describe(refusal).find("storage full: cannot append record " + std::to_string(stored + 1)
                                   + ": IO error: No space left on device"),
            std::string::npos)
    << describe(refusal);
  const auto stalls = pool.write_stalls();
  ASSERT_EQ(stalls.size(), 1u);
  EXPECT_EQ(stalls.begin()->first, "alpha");
  EXPECT_EQ(stalls.begin()->second.fault, storage_fault::no_space);

  // Reads go on, in the writer and in a read-only open on the full disk.
  auto history = pool.session_history("alpha");
  ASSERT_TRUE(history);
  EXPECT_EQ(int(history->size()), stored);
  {
    auto reader = message_pool::open(dir, read_only_options());
    ASSERT_TRUE(reader) << to_string(reader.error());
    EXPECT_EQ(int((*reader)->session_history("alpha")->size()), stored);
  }
  // A retry while the disk is full is refused the same way.
  EXPECT_EQ(fault_of(pool.append(padded_result("alpha", stored + 1, 2000)).error()),
            storage_fault::no_space);

  fs::remove(disk.path() + "/filler");
  bool written = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!written && std::chrono::steady_clock::now() < deadline) {
    (void)pool.resume();
    auto seq = pool.append(padded_result("alpha", stored + 1, 2000));
    written = bool(seq);
    if (written)
      EXPECT_EQ(*seq, uint64_t(stored + 1)); // no number was spent on the refused writes
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_TRUE(written) << "the pool did not write again within 20 s of space coming back";
  EXPECT_TRUE(pool.write_stalls().empty());
  opened->reset();
  auto reopened = message_pool::open(dir);
  ASSERT_TRUE(reopened) << to_string(reopened.error());
  const auto all = (*reopened)->session_history("alpha");
  ASSERT_TRUE(all);
  ASSERT_EQ(int(all->size()), stored + 1);
  for (int i = 0; i <= stored; ++i)
    EXPECT_EQ((*all)[i].seq, uint64_t(i + 1));
}

TEST_F(pool_faults_test, flipped_bytes_in_the_log_refuse_the_pool_and_repair_keeps_the_evidence) {
  {
    auto pool = message_pool::open(dir_);
    ASSERT_TRUE(pool);
    append_padded(**pool, "alpha", 20, 3000);
    append_padded(**pool, "beta", 20, 3000);
  }
  const auto logs = test::files_ending(dir_, ".log");
  ASSERT_EQ(logs.size(), 1u);
  const auto log_name = fs::path{logs[0]}.filename().string();
  test::flip_bytes(logs[0], 30000, 64); // about a tenth into the 40 records
  const auto damaged = test::file_bytes(logs[0]);

  auto refused = message_pool::open(dir_);
  ASSERT_FALSE(refused) << "a damaged log must not open with records dropped";
  EXPECT_EQ(fault_of(refused.error()), storage_fault::damaged);
  EXPECT_NE(describe(refused.error()).find(log_name + ": "), std::string::npos)
    << describe(refused.error());
  // The refused open deleted nothing and changed nothing.
  EXPECT_EQ(test::file_bytes(logs[0]), damaged);

  auto checkup = check_pool(dir_);
  ASSERT_TRUE(checkup) << to_string(checkup.error());
  EXPECT_TRUE(checkup->damaged());
  ASSERT_EQ(checkup->damaged_logs.size(), 1u);
  EXPECT_EQ(checkup->damaged_logs[0].file, log_name);
  EXPECT_EQ(checkup->damaged_logs[0].bytes, 7074u); // two records of 3000 padded bytes and more
  EXPECT_EQ(checkup->damaged_logs[0].reason,
            "Corruption: checksum mismatch; Corruption: missing start of fragmented record(2)");
  // The 64 bytes at offset 30000 take two batches, records 9 and 10, with
  // them: the bad checksum and the fragment left without its start.
  ASSERT_EQ(checkup->records.missing.size(), 1u);
  EXPECT_EQ(checkup->records.missing[0].first, 9u);
  EXPECT_EQ(checkup->records.missing[0].last, 10u);
  EXPECT_EQ(checkup->records.readable, 38u);
  EXPECT_EQ(test::file_bytes(logs[0]), damaged); // check is read-only

  auto repaired = repair_pool(dir_, "20261127T000000Z");
  ASSERT_TRUE(repaired) << to_string(repaired.error());
  EXPECT_EQ(repaired->evidence_dir, dir_ + "/damaged-20261127T000000Z");
  EXPECT_EQ(test::file_bytes(repaired->evidence_dir + "/" + log_name), damaged);
  EXPECT_EQ(repaired->kept, 38u);
  ASSERT_EQ(repaired->lost.size(), 1u);
  EXPECT_EQ(repaired->lost[0].first, 9u);
  EXPECT_EQ(repaired->lost[0].last, 10u);

  auto after = check_pool(dir_);
  ASSERT_TRUE(after);
  EXPECT_FALSE(after->damaged());
  ASSERT_EQ(after->records.repaired.size(), 1u); // told apart from new damage
  EXPECT_EQ(after->records.repaired[0].first, 9u);
  EXPECT_EQ(after->records.repaired[0].last, 10u);
  auto pool = message_pool::open(dir_);
  ASSERT_TRUE(pool) << to_string(pool.error());
  EXPECT_EQ((*pool)->session_history("alpha")->size(), 18u);
  EXPECT_EQ((*pool)->session_history("beta")->size(), 20u);
  EXPECT_EQ((*pool)->next_seq(), 41u);
}

TEST_F(pool_faults_test, a_bad_table_block_fails_the_session_it_holds_and_no_other) {
  {
    auto pool = message_pool::open(dir_);
    ASSERT_TRUE(pool);
    append_padded(**pool, "alpha", 10, 3000);
    append_padded(**pool, "beta", 10, 3000);
  }
  ASSERT_TRUE((*message_pool::open(dir_))->flush());
  // The largest table file is the records' (the others hold keys only).
  const auto table = test::largest_file_ending(dir_, ".sst");
  ASSERT_FALSE(table.empty());
  test::flip_bytes(table, 100, 64); // the first data block: alpha's first records
  const auto damaged = test::file_bytes(table);

  auto opened = message_pool::open(dir_);
  ASSERT_TRUE(opened) << "a bad block fails its records, not the pool: "
                      << to_string(opened.error());
  auto alpha = (*opened)->session_history("alpha");
  ASSERT_FALSE(alpha);
  EXPECT_EQ(fault_of(alpha.error()), storage_fault::damaged);
  auto beta = (*opened)->session_history("beta");
  ASSERT_TRUE(beta) << to_string(beta.error());
  EXPECT_EQ(beta->size(), 10u);
  opened->reset();

  auto checkup = check_pool(dir_);
  ASSERT_TRUE(checkup) << to_string(checkup.error());
  EXPECT_TRUE(checkup->damaged());
  EXPECT_TRUE(checkup->damaged_logs.empty());
  ASSERT_EQ(checkup->records.unreadable.size(), 1u);
  EXPECT_EQ(checkup->records.unreadable[0].first, 1u);
  EXPECT_EQ(checkup->records.unreadable[0].last, 2u);
  ASSERT_EQ(checkup->unreadable_sessions.size(), 1u);
  EXPECT_EQ(checkup->unreadable_sessions[0].first, "alpha");
  EXPECT_NE(checkup->table_damage.find(fs::path{table}.filename().string()), std::string::npos)
    << checkup->table_damage;

  auto repaired = repair_pool(dir_, "20261127T000001Z");
  ASSERT_TRUE(repaired) << to_string(repaired.error());
  EXPECT_EQ(test::file_bytes(repaired->evidence_dir + "/" + fs::path{table}.filename().string()),
            damaged);
  EXPECT_EQ(repaired->kept, 18u);
  ASSERT_EQ(repaired->lost.size(), 1u);
  EXPECT_EQ(repaired->lost[0].first, 1u);
  EXPECT_EQ(repaired->lost[0].last, 2u);
  auto pool = message_pool::open(dir_);
  ASSERT_TRUE(pool);
  EXPECT_EQ((*pool)->session_history("alpha")->size(), 8u);
  EXPECT_EQ((*pool)->session_history("beta")->size(), 10u);
}

TEST_F(pool_faults_test, a_sound_pool_checks_clean_and_repair_changes_nothing) {
  {
    auto pool = message_pool::open(dir_);
    ASSERT_TRUE(pool);
    append_padded(**pool, "alpha", 3, 100);
  }
  auto checkup = check_pool(dir_);
  ASSERT_TRUE(checkup);
  EXPECT_FALSE(checkup->damaged());
  EXPECT_EQ(checkup->records.readable, 3u);
  EXPECT_EQ(checkup->sessions, 1u);
  auto repaired = repair_pool(dir_, "20261127T000002Z");
  ASSERT_TRUE(repaired);
  EXPECT_TRUE(repaired->evidence_dir.empty());
  EXPECT_FALSE(fs::exists(dir_ + "/damaged-20261127T000002Z"));
}

} // namespace
} // namespace paratune
