// Storage faults under a real daemon: a full disk (a small tmpfs the test
// mounts) pauses the session that needs a write, reads go on, and the
// session finishes once space is back; flipped bytes in the pool's log are
// told by `paratune pool check` and mended by `pool repair` with the damaged
// files kept; a bad table block fails the session it holds, not the daemon.

#include <filesystem>
#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "core/session_state.hpp"
#include "messages/codec.hpp"
#include "storage/message_pool.hpp"
#include "tests/daemon/daemon_service_fixture.hpp"
#include "tests/fixtures/file_damage.hpp"
#include "tests/fixtures/small_disk.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;
using control::control_op;
using test::job_text;

struct daemon_storage : test::daemon_service {
  /// Waits until `done` holds for the session's row; the last row seen.
  template <class Done>
  control::session_row wait_row(test::daemon_process& d, const std::string& id, Done done,
                                std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    auto row = status(d, id);
    while (!done(row) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      row = status(d, id);
    }
    return row;
  }

  static bool ended(const control::session_row& row) {
    session_state s = session_state::running;
    return parse_session_state(row.state, s) && is_final(s);
  }
};

/// Every proposed trial has one result and the session one final status.
void expect_whole_history(const std::vector<wire::envelope>& h, int trials) {
  std::map<int, int> results;
  int finals = 0;
  for (const auto& e : h) {
    if (e.type == "trial_result")
      ++results[e.trial];
    if (e.type == "session_status")
      finals += is_final(wire::body_of<wire::session_status>(e).state);
  }
  EXPECT_EQ(finals, 1);
  EXPECT_EQ(int(results.size()), trials);
  for (const auto& [trial, n] : results)
    EXPECT_EQ(n, 1) << "trial " << trial;
}

TEST_F(daemon_storage, a_full_disk_pauses_the_session_reads_go_on_and_it_finishes_once_freed) {
  test::small_disk disk{48};
  PARATUNE_SKIP_UNLESS_MOUNTED(disk);
  // 2 MiB left: RocksDB cannot reserve its log ahead, so the pool meets the
  // full disk at its next write rather than megabytes later.
  disk.fill("filler-1", 2 << 20);
  test::daemon_process d{disk.path() + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  const auto id = submit(d, job_text(4, 0.002)); // ~3 s per trial
  ASSERT_FALSE(id.empty());
  wait_row(d, id, [](const auto& row) { return row.running > 0; }, std::chrono::seconds(60));

  disk.fill("filler-2"); // the rest, to the last page
  const auto paused = wait_row(d, id, [](const auto& row) { return row.state != "running"; },
                               std::chrono::seconds(60));
  ASSERT_EQ(paused.state, "paused") << paused.text << "\n" << d.output();
  EXPECT_EQ(paused.text.rfind("waiting for the pool to store its next record: storage full: "
                              "cannot append record ", 0),
            0u)
    << paused.text;
  EXPECT_NE(paused.text.find("No space left on device"), std::string::npos) << paused.text;
  // Reads are served while the disk is full: list, status, history, health.
  const auto listed = d.call(test::request_of(control_op::list));
  ASSERT_TRUE(listed.ok) << listed.error;
  ASSERT_EQ(listed.sessions.size(), 1u);
  EXPECT_EQ(listed.sessions[0].state, "paused");
  const auto before = history(d, id);
  EXPECT_GT(before.size(), 2u);
  EXPECT_TRUE(d.call(test::request_of(control_op::health)).ok);
  // A new session is refused at once, in words, rather than left waiting.
  auto r = test::request_of(control_op::submit);
  r.job_yaml = job_text(1, 0.0005);
  const auto refused = d.call(r);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("cannot store the session: storage full"), std::string::npos)
    << refused.error;
  // A read-only report works on the full disk beside the daemon.
  const auto report = cli({"report", id, "--db", disk.path() + "/state/pool", "--format", "json"});
  EXPECT_EQ(report.status, 0) << report.err;

  fs::remove(disk.path() + "/filler-2");
  fs::remove(disk.path() + "/filler-1");
  const auto row = wait_row(d, id, ended, std::chrono::seconds(180));
  EXPECT_EQ(row.state, "finished") << row.text << "\n" << d.output();
  EXPECT_EQ(row.trials_done, 4);
  const auto after = history(d, id);
  ASSERT_GE(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) // nothing stored before was lost or renumbered
    EXPECT_EQ(after[i].seq, before[i].seq);
  expect_whole_history(after, 4);
  EXPECT_EQ(d.stop(), 0);
  EXPECT_EQ(d.output().find("Assertion"), std::string::npos) << d.output();
}

TEST_F(daemon_storage, read_only_commands_on_a_full_disk_neither_abort_nor_write) {
  test::small_disk disk{16};
  PARATUNE_SKIP_UNLESS_MOUNTED(disk);
  const auto pool_dir = disk.path() + "/pool";
  std::string id = "s20261127T000000-full";
  {
    auto pool = message_pool::open(pool_dir);
    ASSERT_TRUE(pool);
    wire::session_status s;
    s.state = session_state::running;
    ASSERT_TRUE((*pool)->append(wire::make_envelope(id, 0, s)));
  }
  disk.fill("filler");
  const auto checked = cli({"pool", "check", pool_dir});
  EXPECT_EQ(checked.status, 0) << checked.out << checked.err;
  EXPECT_EQ(checked.out, "pool " + pool_dir + ": no damage found (1 records, 1 sessions)\n");
  const auto exported = cli({"export", id, "--db", pool_dir});
  EXPECT_NE(exported.status, 134) << exported.err;
  EXPECT_EQ(exported.err.find("Assertion"), std::string::npos) << exported.err;
  EXPECT_FALSE(fs::exists(pool_dir + "/LOG"));
}

/// A pool of 40 records of about 3 KB (alpha 1..20, beta 21..40), with 64
/// bytes of its log inverted at offset 30000: records 9 and 10 do not read.
std::string make_pool_with_a_damaged_log(const std::string& dir) {
  const auto pool_dir = dir + "/pool";
  {
    auto pool = message_pool::open(pool_dir);
    EXPECT_TRUE(pool);
    for (const auto* session : {"alpha", "beta"})
      for (int t = 1; t <= 20; ++t) {
        wire::trial_result r;
        r.trial = t;
        r.status = trial_status::succeeded;
        r.config = {{"pad", std::string(3000, 'p')}};
        EXPECT_TRUE((*pool)->append(wire::make_envelope(session, t, r)));
      }
  }
  test::flip_bytes(test::files_ending(pool_dir, ".log").at(0), 30000, 64);
  return pool_dir;
}

TEST_F(daemon_storage, pool_check_tells_a_damaged_log_and_repair_keeps_the_evidence) {
  const auto pool_dir = make_pool_with_a_damaged_log(dir);
  const auto log = test::files_ending(pool_dir, ".log").at(0);
  const auto log_name = fs::path{log}.filename().string();
  const auto damaged = test::file_bytes(log);

  const auto checked = cli({"pool", "check", pool_dir});
  EXPECT_EQ(checked.status, 1) << checked.err;
  const std::string dropped = "7064 bytes do not read (Corruption: checksum mismatch; "
                              "Corruption: missing start of fragmented record(2))";
  const std::string unreadable = "7064 bytes unreadable (Corruption: checksum mismatch; "
                                 "Corruption: missing start of fragmented record(2))";
  EXPECT_EQ(checked.out,
            "pool " + pool_dir + ": damaged\n"
            "write-ahead log " + log_name + ": " + dropped + "\n"
            "records lost: 9..10 (2 records), their numbers given out but their batches "
            "unreadable\n"
            "the daemon refuses this pool: storage damaged: cannot open message pool at "
            + pool_dir + " [" + log_name + ": " + unreadable + "]: Corruption: checksum mismatch\n"
            "nothing was changed; `paratune pool repair " + pool_dir
            + "` copies the pool's files aside, then keeps every record that reads\n");
  EXPECT_EQ(test::file_bytes(log), damaged);
  // A report does not show what is left as if it were all: it refuses, in words.
  const auto report = cli({"export", "alpha", "--db", pool_dir});
  EXPECT_EQ(report.status, 1);
  EXPECT_NE(report.err.find("storage damaged"), std::string::npos) << report.err;
  EXPECT_EQ(test::file_bytes(log), damaged);
  // Neither does the daemon start on it, and it deletes nothing.
  {
    test::daemon_process d{dir}; // its pool is dir/pool
    EXPECT_FALSE(d.up());
    EXPECT_NE(d.output().find("daemon: cannot start: storage damaged: cannot open message pool at "
                              + pool_dir + " [" + log_name + ": " + unreadable + "]"),
              std::string::npos)
      << d.output();
    EXPECT_NE(d.output().find("`paratune pool check " + pool_dir + "` tells what is damaged"),
              std::string::npos)
      << d.output();
  }
  EXPECT_EQ(test::file_bytes(log), damaged);

  const auto repaired = cli({"pool", "repair", pool_dir});
  EXPECT_EQ(repaired.status, 0) << repaired.out << repaired.err;
  std::string evidence_dir;
  for (const auto& entry : fs::directory_iterator(pool_dir))
    if (entry.is_directory() && entry.path().filename().string().rfind("damaged-", 0) == 0)
      evidence_dir = entry.path().string();
  ASSERT_FALSE(evidence_dir.empty()) << repaired.out;
  EXPECT_EQ(test::file_bytes(evidence_dir + "/" + log_name), damaged);
  EXPECT_NE(repaired.out.find("copied every file of the pool to " + evidence_dir + "\n"
                              "kept 38 records; lost 9..10 (2 records)\n"
                              "the repaired pool checks clean\n"),
            std::string::npos)
    << repaired.out;
  const auto clean = cli({"pool", "check", pool_dir});
  EXPECT_EQ(clean.status, 0) << clean.out;
  EXPECT_EQ(clean.out, "pool " + pool_dir + ": no damage found (38 records, 2 sessions)\n"
                       "lost before a repair, and noted by it: 9..10 (2 records)\n");
  // The daemon starts on the repaired pool and lists both sessions' records.
  test::daemon_process d{dir};
  EXPECT_TRUE(d.up()) << d.output();
}

TEST_F(daemon_storage, a_bad_table_block_fails_its_session_and_the_daemon_serves_the_others) {
  const auto state = dir + "/state";
  std::string first, second;
  {
    test::daemon_process d{state};
    ASSERT_TRUE(d.up()) << d.output();
    first = submit(d, job_text(2, 0.0005));
    EXPECT_EQ(wait_end(d, first).state, "finished");
    second = submit(d, job_text(2, 0.0005, 4));
    EXPECT_EQ(wait_end(d, second).state, "finished");
    EXPECT_EQ(d.stop(), 0);
  }
  // The pool's records into table files, as a long-lived pool holds them;
  // the first data block holds the first session's first records.
  const auto pool_dir = state + "/pool";
  ASSERT_TRUE((*message_pool::open(pool_dir))->flush());
  // The largest table file is the records' (the others hold keys only).
  const auto table = test::largest_file_ending(pool_dir, ".sst");
  ASSERT_FALSE(table.empty());
  test::flip_bytes(table, 100, 64);

  test::daemon_process d{state};
  ASSERT_TRUE(d.up()) << "one bad block must not keep the daemon down:\n" << d.output();
  const auto rows = d.call(test::request_of(control_op::list));
  ASSERT_TRUE(rows.ok) << rows.error;
  std::map<std::string, control::session_row> by_id;
  for (const auto& row : rows.sessions)
    by_id[row.id] = row;
  ASSERT_EQ(by_id.count(first), 1u);
  EXPECT_EQ(by_id[first].state, "failed");
  EXPECT_EQ(by_id[first].text.rfind("its records in the pool do not read: storage damaged: ", 0),
            0u)
    << by_id[first].text;
  ASSERT_EQ(by_id.count(second), 1u);
  EXPECT_EQ(by_id[second].state, "finished");
  EXPECT_EQ(by_id[second].trials_done, 2);
  // A new session runs to its end beside the damaged one.
  const auto third = submit(d, job_text(2, 0.0005, 5));
  EXPECT_EQ(wait_end(d, third).state, "finished");
  const auto checked = cli({"pool", "check", pool_dir});
  EXPECT_EQ(checked.status, 1) << checked.out;
  EXPECT_NE(checked.out.find("session " + first + ": does not read: storage damaged"),
            std::string::npos)
    << checked.out;
  EXPECT_EQ(checked.out.find("session " + second), std::string::npos) << checked.out;
}

} // namespace
} // namespace paratune
