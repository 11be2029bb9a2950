#include "adapters/diagnosis/diagnosis_run.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "adapters/diagnosis/evidence_readers.hpp"
#include "core/input_error.hpp"
#include "core/diagnosis/analyzer.hpp"

namespace paratune {

diagnosis_report analyze_job(const experiment_spec& exp, diagnosis_evidence& evidence) {
  enrich_evidence(evidence, exp);
  return analyze_evidence(evidence);
}

proposal_set propose_for(const experiment_spec& exp, const diagnosis_report& report,
                         double measured_step_ms, const std::vector<past_optimization>& history,
                         const knowledge_search& search) {
  proposal_context ctx;
  ctx.experiment = &exp;
  ctx.report = &report;
  ctx.measured_step_ms = measured_step_ms;
  ctx.history = &history;
  ctx.knowledge = search;
  return propose(ctx);
}

diagnosis_outcome run_diagnosis(const experiment_spec& exp, diagnosis_evidence evidence,
                                const std::vector<past_optimization>& history,
                                const knowledge_search& search) {
  diagnosis_outcome out;
  out.experiment = exp;
  out.evidence = std::move(evidence);
  out.report = analyze_job(out.experiment, out.evidence);
  out.proposals = propose_for(out.experiment, out.report,
                              out.evidence.kpis.step_time_ms.value_or(0), history, search);
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
