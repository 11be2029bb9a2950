#include "adapters/megatron/megatron_log.hpp"

#include "adapters/megatron/text_scan.hpp"

namespace paratune {

const char* to_string(log_error_kind k) {
  switch (k) {
  case log_error_kind::oom: return "oom";
  case log_error_kind::nccl_timeout: return "nccl_timeout";
  case log_error_kind::config_invalid: return "config_invalid";
  case log_error_kind::nan: return "nan";
  case log_error_kind::other: return "other";
  }
  return "other";
}

logged_failure logged_failure_of(const log_error& e) {
  switch (e.kind) {
    case log_error_kind::oom: return {failure_kind::oom, e.message};
    case log_error_kind::nccl_timeout: return {failure_kind::nccl_timeout, e.message};
    case log_error_kind::config_invalid: return {failure_kind::config_invalid, e.message};
    case log_error_kind::nan: return {failure_kind::nan, e.message};
    case log_error_kind::other: return {failure_kind::other, e.message};
  }
  return {failure_kind::other, e.message};
}

bool megatron_log::recognised() const {
  const bool theory_seen = theory.unsupported || theory.total_mb || theory.params_billion
                           || theory.activation_mb || theory.weight_and_optimizer_mb;
  return !iterations.empty() || !memory.empty() || !errors.empty() || !args.empty()
         || theory_seen || !timers.empty() || layout || num_microbatches
         || !validations.empty() || !markers.empty() || !parameters.empty() || exit_reason;
}

std::optional<std::string_view> find_value(const iteration_record& r, std::string_view key) {
  for (const auto& [k, v] : r.values)
    if (k == key) return v;
  return std::nullopt;
}

std::optional<double> find_number(const iteration_record& r, std::string_view key) {
  const auto v = find_value(r, key);
  if (!v) return std::nullopt;
  return scan::leading_double(*v);
}

} // namespace paratune
