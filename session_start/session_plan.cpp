#include "session_start/session_plan.hpp"

#include "core/initial_check.hpp"
#include "core/input_error.hpp"

namespace paratune {

namespace {

session_plan plan_of(job_document doc, const session_source& src, const std::string& label) {
  session_plan p;
  p.kind = doc.kind;
  if (p.kind != job_kind::gpu_tuning)
    return p;
  // Before anything is stored: a session whose first trial could only be
  // recorded as skipped is a job the user must fix.
  if (const auto refused = initial_refusal(doc.gpu))
    throw input_error(label + ": " + *refused);
  p.job = std::move(doc.gpu);
  p.record = session_record(p.job, src);
  p.relay_ingress = relay_ingress_for(p.job);
  return p;
}

} // namespace

session_plan plan_session_file(const std::string& path, const session_source& src) {
  auto doc = read_job_document(path);
  auto with_text = src;
  if (doc.kind == job_kind::gpu_tuning)
    with_text.job_text = read_text_file(path); // stored for reproducibility
  return plan_of(std::move(doc), with_text, path);
}

session_plan plan_session_text(const std::string& text, const std::string& label,
                               const session_source& src) {
  auto with_text = src;
  with_text.job_text = text;
  return plan_of(read_job_document_text(text, label), with_text, label);
}

} // namespace paratune
