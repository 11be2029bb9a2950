#include "storage/pool_check.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "messages/ec.hpp"

namespace paratune {

namespace fs = std::filesystem;

namespace {

caf::error repair_failure(const std::string& what, const std::error_code& err) {
  return caf::make_error(ec::storage_failure, what + ": " + err.message());
}

void add_to_ranges(std::vector<message_pool::seq_range>& ranges, uint64_t seq) {
  if (!ranges.empty() && ranges.back().last + 1 == seq)
    ranges.back().last = seq;
  else
    ranges.push_back({seq, seq});
}

/// Every regular file of `from` (not its folders, not RocksDB's LOCK) into `to`.
caf::expected<void> copy_pool_files(const fs::path& from, const fs::path& to) {
  std::error_code err;
  fs::create_directories(to, err);
  if (err)
    return repair_failure("cannot make " + to.string(), err);
  for (const auto& entry : fs::directory_iterator(from, err)) {
    if (!entry.is_regular_file() || entry.path().filename() == "LOCK")
      continue;
    fs::copy_file(entry.path(), to / entry.path().filename(), err);
    if (err)
      return repair_failure("cannot copy " + entry.path().string(), err);
  }
  if (err)
    return repair_failure("cannot list " + from.string(), err);
  return {};
}

/// Puts the files of the rebuilt pool `fresh` in place of those of `dir`.
caf::expected<void> swap_pool_files(const fs::path& dir, const fs::path& fresh) {
  std::error_code err;
  for (const auto& entry : fs::directory_iterator(dir, err))
    if (entry.is_regular_file() && !fs::remove(entry.path(), err) && err)
      return repair_failure("cannot remove " + entry.path().string(), err);
  for (const auto& entry : fs::directory_iterator(fresh, err)) {
    fs::rename(entry.path(), dir / entry.path().filename(), err);
    if (err)
      return repair_failure("cannot move " + entry.path().string(), err);
  }
  fs::remove(fresh, err);
  return {};
}

} // namespace

bool pool_checkup::damaged() const {
  return !open_refusal.empty() || !damaged_logs.empty() || !table_damage.empty()
         || !records.missing.empty() || !records.unreadable.empty()
         || !unreadable_sessions.empty() || !index_damage.empty();
}

caf::expected<pool_checkup> check_pool(const std::string& dir) {
  pool_checkup out;
  message_pool::options strict;
  strict.read_only = true;
  if (auto opened = message_pool::open(dir, strict); !opened) {
    if (fault_of(opened.error()) != storage_fault::damaged)
      return opened.error(); // not a pool, or not readable at all
    out.open_refusal = describe(opened.error());
  }
  message_pool::options salvage = strict;
  salvage.skip_damaged_log = true;
  auto opened = message_pool::open(dir, salvage);
  if (!opened)
    return opened.error();
  const auto& pool = **opened;
  out.damaged_logs = dropped_log_bytes_of(pool.storage_log());
  if (auto verified = pool.verify_checksums(); !verified)
    out.table_damage = describe(verified.error());
  auto survey = pool.survey_records();
  if (!survey)
    return survey.error();
  out.records = std::move(*survey);
  auto sessions = pool.sessions();
  if (!sessions) {
    out.index_damage = describe(sessions.error());
    return out;
  }
  out.sessions = sessions->size();
  for (const auto& session : *sessions)
    if (auto history = pool.session_history(session); !history)
      out.unreadable_sessions.emplace_back(session, describe(history.error()));
  return out;
}

caf::expected<pool_repair> repair_pool(const std::string& dir, const std::string& stamp) {
  pool_repair out;
  auto checkup = check_pool(dir);
  if (!checkup)
    return checkup.error();
  out.before = std::move(*checkup);
  if (!out.before.damaged())
    return out;
  // The evidence first: nothing is changed before every file is copied.
  const fs::path evidence = fs::path{dir} / ("damaged-" + stamp);
  if (auto copied = copy_pool_files(dir, evidence); !copied)
    return copied.error();
  out.evidence_dir = evidence.string();
  const fs::path fresh_dir = fs::path{dir} / ("repair-" + stamp + ".tmp");
  {
    message_pool::options salvage;
    salvage.read_only = true;
    salvage.skip_damaged_log = true;
    auto old_pool = message_pool::open(dir, salvage);
    if (!old_pool)
      return old_pool.error();
    auto fresh = message_pool::open(fresh_dir.string());
    if (!fresh)
      return fresh.error();
    const uint64_t end = (*old_pool)->next_seq();
    for (uint64_t seq = 1; seq < end; ++seq) {
      if (std::any_of(out.before.records.repaired.begin(), out.before.records.repaired.end(),
                      [&](const auto& r) { return r.first <= seq && seq <= r.last; }))
        continue; // lost before an earlier repair, and noted so
      auto record = (*old_pool)->record_at(seq);
      if (!record) {
        add_to_ranges(out.lost, seq);
        continue;
      }
      if (auto stored = (*fresh)->append_recovered(*record); !stored)
        return stored.error();
      ++out.kept;
    }
    // The numbers lost stay given out: a subscriber that saw one is not
    // handed another record under it, and the next check knows of them.
    auto lost = out.before.records.repaired;
    lost.insert(lost.end(), out.lost.begin(), out.lost.end());
    if (!lost.empty()) {
      if (auto noted = (*fresh)->note_lost(lost); !noted)
        return noted.error();
    }
    if (auto flushed = (*fresh)->flush(); !flushed)
      return flushed.error();
  }
  if (auto swapped = swap_pool_files(dir, fresh_dir); !swapped)
    return swapped.error();
  return out;
}

} // namespace paratune
