#include "frameworks/trial_output.hpp"

namespace paratune {

trial_output::trial_output(const framework& f, secret_redactor redactor)
  : redactor_(std::move(redactor)), reader_(f.reader()) {}

std::string trial_output::keep(const std::string& raw) {
  auto line = redactor_.redact(raw);
  tail_.push_back(line);
  if (tail_.size() > tail_lines)
    tail_.pop_front();
  return line;
}

trial_output::reading trial_output::read(const std::string& kept) {
  reading r;
  r.iterations = reader_->read(kept);
  const auto failures = reader_->failure_count();
  if (failures > failures_seen_)
    r.new_failure = reader_->failure(failures_seen_);
  failures_seen_ = failures;
  return r;
}

} // namespace paratune
