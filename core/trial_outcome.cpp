#include "core/trial_outcome.hpp"

#include "core/enum_words.hpp"

namespace paratune {

const char* to_string(trial_status s) {
  switch (s) {
    case trial_status::succeeded: return "succeeded";
    case trial_status::failed: return "failed";
    case trial_status::skipped: return "skipped";
    case trial_status::stopped: return "stopped";
  }
  return "failed";
}

bool parse_trial_status(const std::string& text, trial_status& out) {
  if (text == "succeeded" || text == "success") out = trial_status::succeeded;
  else if (text == "failed" || text == "fail") out = trial_status::failed;
  else if (text == "skipped") out = trial_status::skipped;
  else if (text == "stopped") out = trial_status::stopped;
  else return false;
  return true;
}

const char* to_string(failure_kind k) {
  switch (k) {
    case failure_kind::none: return "none";
    case failure_kind::oom: return "oom";
    case failure_kind::config_invalid: return "config_invalid";
    case failure_kind::nccl_timeout: return "nccl_timeout";
    case failure_kind::node_failure: return "node_failure";
    case failure_kind::launcher_error: return "launcher_error";
    case failure_kind::nan: return "nan";
    case failure_kind::other: return "other";
  }
  return "other";
}

bool parse_failure_kind(const std::string& text, failure_kind& out) {
  return parse_word_of(text,
                       {failure_kind::none, failure_kind::oom, failure_kind::config_invalid,
                        failure_kind::nccl_timeout, failure_kind::node_failure,
                        failure_kind::launcher_error, failure_kind::nan,
                        failure_kind::other},
                       out);
}

} // namespace paratune
