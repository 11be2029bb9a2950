#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "core/storage_fault.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

class rocks_db;

/// The Global Message Pool: an append-only log of every envelope (session
/// opened, proposals with their reasoning, trials started and finished,
/// failure diagnoses, status) in RocksDB, indexed by session.
///
/// Column families, in this fixed order (never reorder: handles are
/// positional when the database is reopened):
///   default     unused (RocksDB requires it)
///   meta        "schema_version" -> "1" (written when the pool is created),
///               "next_seq" -> be64, "lost_seqs" -> "9-10,41-41" (pool repair)
///   records     be64(seq) -> envelope (msgpack)
///   by_session  session '\0' be64(seq) -> ""
///   trials      session '\0' be32(trial) -> be64(seq) of the latest trial record
///
/// Each append writes the record, its indexes and next_seq in one atomic
/// WriteBatch, so a crash between appends leaves no half record.
class message_pool {
public:
  struct options {
    bool sync = false;          ///< fdatasync every write (survives a machine crash)
    /// Writes nothing to the directory (reports, `pool check`): works on a
    /// full disk and beside the daemon that writes the pool.
    bool read_only = false;
    /// Reads a damaged write-ahead log past its bad records instead of
    /// refusing the pool (`pool check`, `pool repair` only).
    bool skip_damaged_log = false;
  };

  /// Opens or creates the pool in `dir`; an existing pool is continued.
  static caf::expected<std::unique_ptr<message_pool>> open(const std::string& dir,
                                                           options opts);
  static caf::expected<std::unique_ptr<message_pool>> open(const std::string& dir) {
    return open(dir, options{});
  }

  ~message_pool();
  message_pool(const message_pool&) = delete;
  message_pool& operator=(const message_pool&) = delete;

  /// Stores `e` with the next sequence number and returns that number.
  caf::expected<uint64_t> append(wire::envelope e);
  /// Stores `e` as append() does and returns it as stored: `seq`, and
  /// `prev_seq`, the session's record before it (what the pool actor
  /// publishes).
  caf::expected<wire::envelope> append_record(wire::envelope e);

  /// The sequence numbers a batch got: first..last, consecutive.
  struct seq_range {
    uint64_t first = 0;
    uint64_t last = 0;
  };
  /// A record above this many bytes (msgpack) is refused by append_batch: a
  /// history reply (control::max_message_bytes) must hold at least one.
  static constexpr size_t max_record_bytes = size_t{1} << 20;
  /// Stores every record of `records` in one atomic WriteBatch, with
  /// consecutive sequence numbers in their order, and writes each number
  /// into its envelope (`seq`), so the caller publishes what was stored.
  /// All or nothing: an empty batch, a record with no type, a session that
  /// is empty or holds '\0' (the index's separator), or a record above
  /// max_record_bytes refuses the whole batch (bad_input naming the record's
  /// index), and nothing is written.
  caf::expected<seq_range> append_batch(std::vector<wire::envelope>& records);

  /// One bounded read of a session's history.
  struct history_page {
    std::vector<wire::envelope> records;
    bool more = false; ///< the session has records past the last one here
  };
  /// At most `max_records` of the session's records above `after_seq`, in
  /// order, and no more stored bytes than `max_bytes` (but always the first
  /// record, which append_batch bounds): one page of a reply.
  caf::expected<history_page> session_page(const std::string& session, uint64_t after_seq,
                                           size_t max_records, size_t max_bytes) const;

  /// Every record of one session, in append order.
  caf::expected<std::vector<wire::envelope>> session_history(const std::string& session) const {
    return session_history(session, 0);
  }
  /// The session's records with a sequence number above `after_seq`, in
  /// order: what was appended since a reader last read up to `after_seq`
  /// (the scan starts there, so its cost does not grow with the history).
  caf::expected<std::vector<wire::envelope>> session_history(const std::string& session,
                                                             uint64_t after_seq) const;

  /// Session ids that have records, in byte order.
  caf::expected<std::vector<std::string>> sessions() const;

  /// The latest record of one trial (trial_started or trial_result).
  caf::expected<wire::envelope> latest_trial_record(const std::string& session,
                                                    int trial) const;

  /// The sequence number the next append will get.
  uint64_t next_seq() const;

  /// A session whose last write the pool refused for a cause that may pass
  /// (a full disk, a refusing device): its writer waits and retries.
  struct write_stall {
    storage_fault fault = storage_fault::none;
    std::string error; ///< the refusal, in words
  };
  /// The sessions whose last write was refused so, by id; a write of the
  /// session that succeeds takes it off. Thread-safe (the daemon's list).
  std::map<std::string, write_stall> write_stalls() const;

  /// Lets RocksDB write again after a refused write once the cause is
  /// gone (it does so by itself for a disk that got space back).
  caf::expected<void> resume();

  /// Every block checksum of the pool's table files: the first damage found.
  caf::expected<void> verify_checksums() const;

  /// What reading every sequence number below next_seq() finds.
  struct record_survey {
    std::vector<seq_range> missing;    ///< numbers given out but not stored
    std::vector<seq_range> unreadable; ///< stored, but their bytes do not read
    std::string first_unreadable;      ///< why the first unreadable one does not
    uint64_t readable = 0;
    std::vector<seq_range> repaired;   ///< lost before a repair, which recorded them
  };
  caf::expected<record_survey> survey_records() const;

  /// Stores `e` under its own sequence number `e.seq`, with its indexes;
  /// next_seq() becomes at least e.seq + 1. For `pool repair` only, which
  /// copies the records that read into a fresh pool.
  caf::expected<void> append_recovered(const wire::envelope& e);

  /// Moves every record still only in the write-ahead log into table files
  /// (`pool repair` leaves the rebuilt pool so: no log to replay).
  caf::expected<void> flush();

  /// Records that `ranges` were lost and accepted as lost by a repair, so
  /// later checks tell them apart from new damage (meta "lost_seqs"), and
  /// keeps next_seq() above them: a lost number is never given again.
  caf::expected<void> note_lost(const std::vector<seq_range>& ranges);

  /// The record stored under `seq`.
  caf::expected<wire::envelope> record_at(uint64_t seq) const { return read_record(seq); }

  /// RocksDB's warnings and errors since the open (bytes it dropped from a
  /// damaged log, with `skip_damaged_log`).
  std::vector<std::string> storage_log() const;

private:
  message_pool() = default;
  caf::expected<wire::envelope> read_record(uint64_t seq) const;
  /// The highest sequence number stored for `session` (0: none), from its
  /// index. Called under the write lock, so no append is between it and
  /// the next.
  caf::expected<uint64_t> last_seq_in(const std::string& session) const;
  /// The raw value of one record, decoded by the caller.
  caf::expected<std::string> read_raw(uint64_t seq) const;
  /// Writes the schema version into a new pool; refuses another version.
  caf::expected<void> check_schema(const std::string& dir);
  /// Notes a refused write of `sessions` as a stall when its cause may
  /// pass, or takes them off when `err` is none (the write succeeded).
  void note_write(const std::vector<std::string>& sessions, const caf::error& err);

  std::unique_ptr<rocks_db> store_;
  options opts_;
  mutable std::mutex write_mutex_; ///< one writer allocates sequence numbers
  uint64_t next_seq_ = 1;
  mutable std::mutex stalls_mutex_; ///< list reads stalls beside a blocked write
  std::map<std::string, write_stall> stalls_;
};

} // namespace paratune
