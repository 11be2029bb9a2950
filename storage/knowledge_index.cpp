#include "storage/knowledge_index.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <unordered_map>

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include "core/retrieval/bm25.hpp"
#include "messages/ec.hpp"
#include "storage/big_endian.hpp"
#include "storage/key_range.hpp"
#include "storage/rocks_db.hpp"

namespace paratune {

namespace {

enum knowledge_column : std::size_t { index_cf_default, index_cf_meta, index_cf_docs, index_cf_lengths, index_cf_postings };
const char* const knowledge_columns[] = {"default", "meta", "docs", "lengths", "postings"};

std::string doc_key(std::uint32_t doc) {
  std::string k;
  big_endian::put32(k, doc);
  return k;
}

void put_field(std::string& out, const std::string& s) {
  big_endian::put32(out, static_cast<std::uint32_t>(s.size()));
  out += s;
}

std::string encode_doc(const knowledge_doc& d) {
  std::string tags;
  for (const auto& t : d.tags)
    tags += (tags.empty() ? "" : ",") + t;
  std::string out;
  const std::string* fields[] = {&d.id, &d.title, &tags, &d.body};
  for (const auto* f : fields)
    put_field(out, *f);
  return out;
}

knowledge_doc decode_doc(std::string_view in) {
  std::string fields[4];
  for (auto& f : fields) {
    if (in.size() < 4)
      break;
    const auto n = std::min<std::size_t>(big_endian::get32(in), in.size() - 4);
    f = std::string(in.substr(4, n));
    in.remove_prefix(4 + n);
  }
  knowledge_doc d{fields[0], fields[1], {}, fields[3]};
  std::size_t pos = 0;
  while (pos < fields[2].size()) {
    auto comma = fields[2].find(',', pos);
    if (comma == std::string::npos)
      comma = fields[2].size();
    d.tags.push_back(fields[2].substr(pos, comma - pos));
    pos = comma + 1;
  }
  return d;
}


struct scored {
  std::uint32_t doc;
  double score;
};

} // namespace

caf::expected<std::unique_ptr<knowledge_index>> knowledge_index::open(const std::string& dir) {
  auto store = rocks_db::open(dir, {std::begin(knowledge_columns), std::end(knowledge_columns)},
                              "knowledge index");
  if (!store)
    return store.error();
  std::unique_ptr<knowledge_index> idx{new knowledge_index};
  idx->store_ = std::move(*store);
  return idx;
}

knowledge_index::~knowledge_index() = default;

std::string knowledge_index::fingerprint(const std::vector<knowledge_doc>& docs) {
  // FNV-1a over every field with separators; stable across runs and builds.
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s)
      h = (h ^ c) * 1099511628211ULL;
    h = (h ^ 0x1f) * 1099511628211ULL;
  };
  for (const auto& d : docs)
    mix(encode_doc(d));
  return std::to_string(docs.size()) + ":" + std::to_string(h);
}

caf::expected<void> knowledge_index::rebuild(const std::vector<knowledge_doc>& docs) {
  rocksdb::WriteBatch batch;
  for (std::size_t cf = index_cf_meta; cf <= index_cf_postings; ++cf)
    batch.DeleteRange(store_->column(cf), std::string(), std::string(64, '\xff'));
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < docs.size(); ++i) {
    const auto tokens = bm25::tokenize(indexed_text(docs[i]));
    std::map<std::string, std::uint32_t> tf;
    for (const auto& t : tokens)
      ++tf[t];
    batch.Put(store_->column(index_cf_docs), doc_key(i), encode_doc(docs[i]));
    batch.Put(store_->column(index_cf_lengths), doc_key(i),
              doc_key(static_cast<std::uint32_t>(tokens.size())));
    for (const auto& [term, n] : tf)
      batch.Put(store_->column(index_cf_postings), term + '\0' + doc_key(i), doc_key(n));
    total += tokens.size();
  }
  batch.Put(store_->column(index_cf_meta), "doc_count", big_endian::encode64(docs.size()));
  batch.Put(store_->column(index_cf_meta), "total_length", big_endian::encode64(total));
  batch.Put(store_->column(index_cf_meta), "fingerprint", fingerprint(docs));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  auto s = store_->db()->Write(wo, &batch);
  if (!s.ok())
    return storage_error("cannot rebuild the knowledge index", s);
  return {};
}

caf::expected<bool> knowledge_index::ensure(const std::vector<knowledge_doc>& docs) {
  std::string stored;
  auto s = store_->db()->Get({}, store_->column(index_cf_meta), "fingerprint", &stored);
  if (s.ok() && stored == fingerprint(docs))
    return false;
  if (!s.ok() && !s.IsNotFound())
    return storage_error("cannot read the knowledge index fingerprint", s);
  auto r = rebuild(docs);
  if (!r)
    return r.error();
  return true;
}

caf::expected<std::uint64_t> knowledge_index::meta_u64(const char* key) const {
  std::string v;
  auto s = store_->db()->Get({}, store_->column(index_cf_meta), key, &v);
  if (s.IsNotFound())
    return std::uint64_t{0};
  if (!s.ok())
    return storage_error(std::string("cannot read ") + key, s);
  return big_endian::get64(v);
}

std::uint64_t knowledge_index::size() const {
  auto n = meta_u64("doc_count");
  return n ? *n : 0;
}

caf::expected<knowledge_doc> knowledge_index::document(std::uint32_t doc) const {
  std::string v;
  auto s = store_->db()->Get({}, store_->column(index_cf_docs), doc_key(doc), &v);
  if (!s.ok())
    return storage_error("cannot read knowledge document " + std::to_string(doc), s);
  return decode_doc(v);
}

caf::expected<std::vector<knowledge_hit>> knowledge_index::query(const std::string& text,
                                                                 std::size_t k) const {
  auto docs = meta_u64("doc_count");
  auto total = meta_u64("total_length");
  if (!docs)
    return docs.error();
  if (!total)
    return total.error();
  std::vector<knowledge_hit> out;
  if (*docs == 0 || k == 0)
    return out;
  const double avg = double(*total) / double(*docs);
  auto terms = bm25::tokenize(text);
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  std::unordered_map<std::uint32_t, double> scores;
  for (const auto& term : terms) {
    const std::string prefix = term + '\0';
    const std::string end = prefix_end(prefix);
    rocksdb::Slice upper{end};
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> it{
      store_->db()->NewIterator(ro, store_->column(index_cf_postings))};
    std::vector<std::pair<std::uint32_t, std::uint32_t>> postings;
    for (it->Seek(prefix); it->Valid(); it->Next())
      postings.emplace_back(big_endian::get32(it->key().ToStringView().substr(prefix.size())),
                            big_endian::get32(it->value().ToStringView()));
    if (!it->status().ok())
      return storage_error("cannot scan postings of '" + term + "'", it->status());
    const double w = bm25::idf(*docs, postings.size());
    for (const auto& [doc, tf] : postings) {
      std::string len;
      auto s = store_->db()->Get({}, store_->column(index_cf_lengths), doc_key(doc), &len);
      if (!s.ok())
        return storage_error("cannot read a document length", s);
      scores[doc] += bm25::term_score(w, tf, big_endian::get32(len), avg);
    }
  }
  std::vector<scored> ranked;
  for (const auto& [doc, score] : scores)
    ranked.push_back({doc, score});
  std::sort(ranked.begin(), ranked.end(), [](const scored& a, const scored& b) {
    return a.score != b.score ? a.score > b.score : a.doc < b.doc;
  });
  for (std::size_t i = 0; i < ranked.size() && i < k; ++i) {
    auto d = document(ranked[i].doc);
    if (!d)
      return d.error();
    out.push_back({d->id, d->title, ranked[i].score, excerpt_of(d->body)});
  }
  return out;
}

} // namespace paratune
