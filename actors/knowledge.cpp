#include "actors/knowledge.hpp"

#include "adapters/diagnosis/diagnosis_run.hpp"
#include "storage/knowledge_index.hpp"

namespace paratune {

caf::expected<std::unique_ptr<knowledge_index>> open_knowledge(const std::string& index_dir,
                                                               const std::string& docs_dir) {
  auto index = knowledge_index::open(index_dir);
  if (!index)
    return index.error();
  auto docs = load_knowledge_dir(docs_dir);
  auto rebuilt = (*index)->ensure(docs);
  if (!rebuilt)
    return rebuilt.error();
  return index;
}

knowledge_search search_of(const knowledge_index& index) {
  return [&index](const std::string& query, std::size_t k) {
    std::vector<citation> out;
    auto hits = index.query(query, k);
    if (!hits)
      return out;  // a broken index costs citations, not the diagnosis
    for (const auto& h : *hits)
      out.push_back({"knowledge", h.id, h.title, h.score, h.excerpt});
    return out;
  };
}

} // namespace paratune
