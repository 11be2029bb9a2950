#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "core/retrieval/knowledge_doc.hpp"

namespace paratune {

class rocks_db;

/// A BM25 index of the knowledge base in its own RocksDB directory (apart
/// from the message pool, whose column families it leaves alone).
///
/// Column families, in this fixed order (never reorder):
///   default   unused
///   meta      "doc_count" -> be64, "total_length" -> be64, "fingerprint" -> text
///   docs      be32(doc) -> id, title, tags, body (each be32 length + bytes)
///   lengths   be32(doc) -> be32(tokens)
///   postings  term '\0' be32(doc) -> be32(term frequency)
///
/// Postings of one term are contiguous and sorted by document (big-endian
/// ids), so a query is one prefix scan per term. rebuild() deletes and
/// rewrites everything in one WriteBatch: a reader sees the old index or the
/// new one, never a mix.
class knowledge_index {
public:
  static caf::expected<std::unique_ptr<knowledge_index>> open(const std::string& dir);
  ~knowledge_index();
  knowledge_index(const knowledge_index&) = delete;
  knowledge_index& operator=(const knowledge_index&) = delete;

  /// Replaces the whole index with `docs`, atomically.
  caf::expected<void> rebuild(const std::vector<knowledge_doc>& docs);

  /// Rebuilds only when `docs` differ from what is indexed (by content
  /// fingerprint). Returns whether it rebuilt.
  caf::expected<bool> ensure(const std::vector<knowledge_doc>& docs);

  /// The `k` best documents for `text`, highest BM25 score first; ties by
  /// document order. Documents that share no term with the query are left out.
  caf::expected<std::vector<knowledge_hit>> query(const std::string& text, std::size_t k) const;

  caf::expected<knowledge_doc> document(std::uint32_t doc) const;
  std::uint64_t size() const;

  /// A content fingerprint of a document set (order-sensitive).
  static std::string fingerprint(const std::vector<knowledge_doc>& docs);

private:
  knowledge_index() = default;
  caf::expected<std::uint64_t> meta_u64(const char* key) const;

  std::unique_ptr<rocks_db> store_;
};

} // namespace paratune
