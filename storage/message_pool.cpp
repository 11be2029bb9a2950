#include "storage/message_pool.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <utility>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "storage/big_endian.hpp"
#include "storage/key_range.hpp"
#include "storage/rocks_db.hpp"

namespace paratune {

namespace {

enum column : size_t { cf_default, cf_meta, cf_records, cf_by_session, cf_trials };
const char* const column_names[] = {"default", "meta", "records", "by_session", "trials"};

std::string session_prefix(const std::string& session) {
  std::string key = session;
  key.push_back('\0');
  return key;
}

std::string trial_key(const std::string& session, int trial) {
  auto key = session_prefix(session);
  big_endian::put32(key, static_cast<uint32_t>(trial));
  return key;
}

bool indexes_trial(const wire::envelope& e) {
  return e.trial > 0 && (e.type == "trial_started" || e.type == "trial_result");
}

/// Why record `index` of a batch cannot be stored, or "" when it can.
std::string batch_refusal(const wire::envelope& e, size_t index) {
  const auto which = "record " + std::to_string(index) + " of the batch";
  if (e.type.empty())
    return which + " has no type";
  if (e.session.empty())
    return which + " has no session";
  if (e.session.find('\0') != std::string::npos)
    return which + " has a session id holding a NUL byte";
  return "";
}


/// "9-10,41-41" as ranges; a part that does not read is left out.
std::vector<message_pool::seq_range> parse_seq_ranges(const std::string& text) {
  std::vector<message_pool::seq_range> out;
  size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(',', start);
    if (end == std::string::npos)
      end = text.size();
    const auto part = text.substr(start, end - start);
    const auto dash = part.find('-');
    try {
      if (dash != std::string::npos)
        out.push_back({std::stoull(part.substr(0, dash)), std::stoull(part.substr(dash + 1))});
    } catch (const std::exception&) {
    }
    start = end + 1;
  }
  return out;
}

} // namespace

caf::expected<std::unique_ptr<message_pool>>
message_pool::open(const std::string& dir, options opts) {
  auto store = rocks_db::open(dir, {std::begin(column_names), std::end(column_names)},
                              "message pool", {opts.read_only, opts.skip_damaged_log});
  if (!store)
    return store.error();
  std::unique_ptr<message_pool> pool{new message_pool};
  pool->opts_ = opts;
  pool->store_ = std::move(*store);
  std::string value;
  auto s = pool->store_->db()->Get({}, pool->store_->column(cf_meta), "next_seq", &value);
  if (s.ok())
    pool->next_seq_ = big_endian::get64(value);
  else if (!s.IsNotFound())
    return storage_error("cannot read next_seq", s);
  if (auto checked = pool->check_schema(dir); !checked)
    return checked.error();
  return pool;
}

message_pool::~message_pool() = default;

caf::expected<void> message_pool::check_schema(const std::string& dir) {
  const auto ours = std::to_string(wire::schema_version);
  std::string stored;
  auto s = store_->db()->Get({}, store_->column(cf_meta), "schema_version", &stored);
  if (s.IsNotFound() && opts_.read_only)
    return {}; // a read-only open never writes; an empty pool has nothing to read
  if (s.IsNotFound()) {
    // A new pool: its schema is written once, here.
    s = store_->db()->Put({}, store_->column(cf_meta), "schema_version", ours);
    if (!s.ok())
      return storage_error("cannot write the schema version", s);
    return {};
  }
  if (!s.ok())
    return storage_error("cannot read the schema version", s);
  if (stored != ours)
    return caf::make_error(ec::storage_failure, "message pool at " + dir + " has schema version "
                                                  + stored + ", this build reads " + ours);
  return {};
}

caf::expected<uint64_t> message_pool::append(wire::envelope e) {
  auto stored = append_record(std::move(e));
  if (!stored)
    return stored.error();
  return stored->seq;
}

caf::expected<uint64_t> message_pool::last_seq_in(const std::string& session) const {
  const auto prefix = session_prefix(session);
  rocksdb::Slice lower{prefix};
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lower;
  std::unique_ptr<rocksdb::Iterator> it{
    store_->db()->NewIterator(ro, store_->column(cf_by_session))};
  it->SeekForPrev(prefix_end(prefix));
  if (!it->status().ok())
    return storage_error("cannot read the index of session " + session, it->status());
  if (!it->Valid() || !it->key().starts_with(prefix))
    return uint64_t(0);
  return big_endian::get64(it->key().ToStringView().substr(prefix.size()));
}

caf::expected<wire::envelope> message_pool::append_record(wire::envelope e) {
  std::lock_guard<std::mutex> guard{write_mutex_};
  const uint64_t seq = next_seq_;
  auto prev = last_seq_in(e.session);
  if (!prev)
    return prev.error();
  e.seq = seq;
  e.prev_seq = *prev;
  const auto key = big_endian::encode64(seq);
  rocksdb::WriteBatch batch;
  batch.Put(store_->column(cf_records), key, wire::pack(e));
  batch.Put(store_->column(cf_by_session), session_prefix(e.session) + key, "");
  if (indexes_trial(e))
    batch.Put(store_->column(cf_trials), trial_key(e.session, e.trial), key);
  batch.Put(store_->column(cf_meta), "next_seq", big_endian::encode64(seq + 1));
  rocksdb::WriteOptions wo;
  wo.sync = opts_.sync;
  auto s = store_->db()->Write(wo, &batch);
  if (!s.ok()) {
    auto err = storage_error("cannot append record " + std::to_string(seq), s);
    note_write({e.session}, err);
    return err;
  }
  note_write({e.session}, {});
  next_seq_ = seq + 1;
  return e;
}

caf::expected<message_pool::seq_range>
message_pool::append_batch(std::vector<wire::envelope>& records) {
  if (records.empty())
    return caf::make_error(ec::bad_input, "an empty batch has nothing to append");
  for (size_t i = 0; i < records.size(); ++i)
    if (auto why = batch_refusal(records[i], i); !why.empty())
      return caf::make_error(ec::bad_input, why + "; nothing of the batch was stored");
  std::lock_guard<std::mutex> guard{write_mutex_};
  const uint64_t first = next_seq_;
  std::vector<uint64_t> given_seqs; // put back when the batch is refused
  given_seqs.reserve(records.size());
  rocksdb::WriteBatch batch;
  msgpack::sbuffer packed;
  std::string key;
  std::string index_key;
  // Each session's latest record, before the batch and then within it.
  std::map<std::string, uint64_t, std::less<>> latest;
  for (size_t i = 0; i < records.size(); ++i) {
    auto& e = records[i];
    given_seqs.push_back(e.seq);
    e.seq = first + i;
    auto at = latest.find(e.session);
    if (at == latest.end()) {
      auto prev = last_seq_in(e.session);
      if (!prev) {
        for (size_t j = 0; j <= i; ++j)
          records[j].seq = given_seqs[j];
        return prev.error();
      }
      at = latest.emplace(e.session, *prev).first;
    }
    e.prev_seq = std::exchange(at->second, e.seq);
    packed.clear();
    msgpack::pack(packed, e);
    if (packed.size() > max_record_bytes) {
      for (size_t j = 0; j <= i; ++j)
        records[j].seq = given_seqs[j];
      return caf::make_error(ec::bad_input, "record " + std::to_string(i) + " of the batch has "
                                              + std::to_string(packed.size())
                                              + " bytes, above the limit of "
                                              + std::to_string(max_record_bytes)
                                              + "; nothing of the batch was stored");
    }
    key.clear();
    big_endian::put64(key, e.seq);
    batch.Put(store_->column(cf_records), key, rocksdb::Slice(packed.data(), packed.size()));
    index_key = session_prefix(e.session);
    index_key += key;
    batch.Put(store_->column(cf_by_session), index_key, "");
    if (indexes_trial(e))
      batch.Put(store_->column(cf_trials), trial_key(e.session, e.trial), key);
  }
  const uint64_t last = first + records.size() - 1;
  batch.Put(store_->column(cf_meta), "next_seq", big_endian::encode64(last + 1));
  rocksdb::WriteOptions wo;
  wo.sync = opts_.sync;
  std::vector<std::string> sessions;
  for (const auto& e : records)
    if (sessions.empty() || sessions.back() != e.session)
      sessions.push_back(e.session);
  if (auto s = store_->db()->Write(wo, &batch); !s.ok()) {
    for (size_t j = 0; j < records.size(); ++j)
      records[j].seq = given_seqs[j];
    auto err = storage_error("cannot append records " + std::to_string(first) + ".."
                               + std::to_string(last), s);
    note_write(sessions, err);
    return err;
  }
  note_write(sessions, {});
  next_seq_ = last + 1;
  return seq_range{first, last};
}

caf::expected<std::string> message_pool::read_raw(uint64_t seq) const {
  std::string value;
  auto s = store_->db()->Get({}, store_->column(cf_records), big_endian::encode64(seq), &value);
  if (!s.ok())
    return storage_error("cannot read record " + std::to_string(seq), s);
  return value;
}

caf::expected<wire::envelope> message_pool::read_record(uint64_t seq) const {
  auto value = read_raw(seq);
  if (!value)
    return value.error();
  try {
    return wire::decode_envelope(*value);
  } catch (const wire::decode_error& e) {
    return caf::make_error(ec::decode_failure, "record " + std::to_string(seq)
                                                 + ": " + e.what());
  }
}

caf::expected<std::vector<wire::envelope>>
message_pool::session_history(const std::string& session, uint64_t after_seq) const {
  // One page without limits: one scan of the session's index for both.
  auto page = session_page(session, after_seq, std::numeric_limits<size_t>::max(),
                           std::numeric_limits<size_t>::max());
  if (!page)
    return page.error();
  return std::move(page->records);
}

caf::expected<message_pool::history_page>
message_pool::session_page(const std::string& session, uint64_t after_seq, size_t max_records,
                           size_t max_bytes) const {
  const auto prefix = session_prefix(session);
  const auto end = prefix_end(prefix);
  std::string first = prefix;
  big_endian::put64(first, after_seq + 1);
  rocksdb::Slice upper{end};
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it{
    store_->db()->NewIterator(ro, store_->column(cf_by_session))};
  history_page page;
  size_t bytes = 0;
  for (it->Seek(first); it->Valid() && page.records.size() < max_records; it->Next()) {
    const uint64_t seq = big_endian::get64(it->key().ToStringView().substr(prefix.size()));
    auto value = read_raw(seq);
    if (!value)
      return value.error();
    if (!page.records.empty() && bytes + value->size() > max_bytes)
      break; // the next page starts with this record
    bytes += value->size();
    try {
      page.records.push_back(wire::decode_envelope(*value));
    } catch (const wire::decode_error& e) {
      return caf::make_error(ec::decode_failure, "record " + std::to_string(seq) + ": " + e.what());
    }
  }
  if (!it->status().ok())
    return storage_error("cannot scan session " + session, it->status());
  page.more = it->Valid();
  return page;
}

caf::expected<std::vector<std::string>> message_pool::sessions() const {
  std::unique_ptr<rocksdb::Iterator> it{
    store_->db()->NewIterator({}, store_->column(cf_by_session))};
  std::vector<std::string> out;
  it->SeekToFirst();
  while (it->Valid()) {
    auto key = it->key().ToString();
    auto session = key.substr(0, key.find('\0'));
    out.push_back(session);
    it->Seek(prefix_end(session_prefix(session))); // skip the rest of it
  }
  if (!it->status().ok())
    return storage_error("cannot list sessions", it->status());
  return out;
}

caf::expected<wire::envelope>
message_pool::latest_trial_record(const std::string& session, int trial) const {
  std::string value;
  auto s = store_->db()->Get({}, store_->column(cf_trials), trial_key(session, trial), &value);
  if (!s.ok())
    return storage_error("no record of trial " + std::to_string(trial)
                           + " in session " + session, s);
  return read_record(big_endian::get64(value));
}

uint64_t message_pool::next_seq() const {
  std::lock_guard<std::mutex> guard{write_mutex_};
  return next_seq_;
}

void message_pool::note_write(const std::vector<std::string>& sessions, const caf::error& err) {
  const auto fault = fault_of(err);
  std::lock_guard<std::mutex> guard{stalls_mutex_};
  for (const auto& session : sessions) {
    if (!err)
      stalls_.erase(session);
    else if (on_write_fault(fault, write_origin::running_session)
             == write_action::wait_and_retry)
      stalls_[session] = write_stall{fault, describe(err)};
  }
}

std::map<std::string, message_pool::write_stall> message_pool::write_stalls() const {
  std::lock_guard<std::mutex> guard{stalls_mutex_};
  return stalls_;
}

std::vector<std::string> message_pool::storage_log() const {
  return store_->log_lines();
}

caf::expected<void> message_pool::resume() {
  return store_->resume();
}

caf::expected<void> message_pool::verify_checksums() const {
  auto s = store_->db()->VerifyChecksum();
  if (!s.ok())
    return storage_error("the pool's table files do not verify", s);
  return {};
}

caf::expected<message_pool::record_survey> message_pool::survey_records() const {
  // Point reads, not a scan: a scan stops at the first bad block, a read of
  // one number fails for the records of that block only.
  record_survey out;
  auto extend = [](std::vector<seq_range>& ranges, uint64_t seq) {
    if (!ranges.empty() && ranges.back().last + 1 == seq)
      ranges.back().last = seq;
    else
      ranges.push_back({seq, seq});
  };
  std::string value;
  auto noted = store_->db()->Get({}, store_->column(cf_meta), "lost_seqs", &value);
  if (!noted.ok() && !noted.IsNotFound())
    return storage_error("cannot read lost_seqs", noted);
  if (noted.ok())
    out.repaired = parse_seq_ranges(value);
  auto repaired = [&](uint64_t seq) {
    return std::any_of(out.repaired.begin(), out.repaired.end(),
                       [&](const seq_range& r) { return r.first <= seq && seq <= r.last; });
  };
  const uint64_t end = next_seq();
  for (uint64_t seq = 1; seq < end; ++seq) {
    auto s = store_->db()->Get({}, store_->column(cf_records), big_endian::encode64(seq), &value);
    if (s.ok()) {
      ++out.readable;
    } else if (s.IsNotFound() && repaired(seq)) {
      continue;
    } else if (s.IsNotFound()) {
      extend(out.missing, seq);
    } else {
      if (out.unreadable.empty())
        out.first_unreadable = s.ToString();
      extend(out.unreadable, seq);
    }
  }
  return out;
}

caf::expected<void> message_pool::flush() {
  for (size_t c = cf_default; c <= cf_trials; ++c)
    if (auto s = store_->db()->Flush({}, store_->column(c)); !s.ok())
      return storage_error("cannot flush the pool", s);
  return {};
}

caf::expected<void> message_pool::note_lost(const std::vector<seq_range>& ranges) {
  std::string value;
  auto s = store_->db()->Get({}, store_->column(cf_meta), "lost_seqs", &value);
  if (!s.ok() && !s.IsNotFound())
    return storage_error("cannot read lost_seqs", s);
  auto all = s.ok() ? parse_seq_ranges(value) : std::vector<seq_range>{};
  all.insert(all.end(), ranges.begin(), ranges.end());
  std::string text;
  for (const auto& r : all)
    text += (text.empty() ? "" : ",") + std::to_string(r.first) + "-" + std::to_string(r.last);
  // Lost numbers stay given out: none is handed to a new record.
  std::lock_guard<std::mutex> guard{write_mutex_};
  uint64_t next = next_seq_;
  for (const auto& r : all)
    next = std::max(next, r.last + 1);
  rocksdb::WriteBatch batch;
  batch.Put(store_->column(cf_meta), "lost_seqs", text);
  batch.Put(store_->column(cf_meta), "next_seq", big_endian::encode64(next));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  if (s = store_->db()->Write(wo, &batch); !s.ok())
    return storage_error("cannot note the lost records", s);
  next_seq_ = next;
  return {};
}

caf::expected<void> message_pool::append_recovered(const wire::envelope& e) {
  std::lock_guard<std::mutex> guard{write_mutex_};
  const auto key = big_endian::encode64(e.seq);
  rocksdb::WriteBatch batch;
  batch.Put(store_->column(cf_records), key, wire::pack(e));
  batch.Put(store_->column(cf_by_session), session_prefix(e.session) + key, "");
  if (indexes_trial(e))
    batch.Put(store_->column(cf_trials), trial_key(e.session, e.trial), key);
  const uint64_t next = std::max(next_seq_, e.seq + 1);
  batch.Put(store_->column(cf_meta), "next_seq", big_endian::encode64(next));
  if (auto s = store_->db()->Write({}, &batch); !s.ok())
    return storage_error("cannot store recovered record " + std::to_string(e.seq), s);
  next_seq_ = next;
  return {};
}

} // namespace paratune
