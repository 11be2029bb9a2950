#include "adapters/diagnosis/diagnosis_run.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "adapters/diagnosis/evidence_readers.hpp"
#include "core/input_error.hpp"
#include "core/reasoning/analyzer.hpp"
#include "storage/knowledge_index.hpp"

namespace paratune {

diagnosis_outcome run_diagnosis(const experiment_spec& exp, diagnosis_evidence evidence,
                                const std::vector<past_optimization>& history,
                                const knowledge_search& search) {
  diagnosis_outcome out;
  out.experiment = exp;
  enrich_evidence(evidence, exp);
  out.evidence = std::move(evidence);
  out.report = analyze_evidence(out.evidence);
  proposal_context ctx;
  ctx.experiment = &out.experiment;
  ctx.report = &out.report;
  ctx.measured_step_ms = out.evidence.kpis.step_time_ms.value_or(0);
  ctx.history = &history;
  ctx.knowledge = search;
  out.proposals = propose(ctx);
  return out;
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

std::vector<knowledge_doc> load_knowledge_dir(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".md")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<knowledge_doc> docs;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    if (!in && !in.eof())
      throw input_error(f.string() + ": cannot read");
    docs.push_back(parse_knowledge_doc(ss.str(), f.string()));
  }
  return docs;
}

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

} // namespace paratune
