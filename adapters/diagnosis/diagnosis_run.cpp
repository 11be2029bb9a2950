#include "adapters/diagnosis/diagnosis_run.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "adapters/diagnosis/evidence_readers.hpp"
#include "core/input_error.hpp"
#include "core/diagnosis/analyzer.hpp"

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

} // namespace paratune
