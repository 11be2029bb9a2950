#include "core/tuning/safety_guards.hpp"

#include <algorithm>

#include "core/initial_check.hpp"
#include "core/megatron_rules.hpp"

namespace paratune {

safety_guards::safety_guards(const tuning_context& ctx,
                             const std::vector<trial_outcome>& history,
                             memory_screen::predictor predict,
                             const std::vector<pending_trial>& pending)
  : ctx_(ctx), history_(history), memory_(history, std::move(predict)) {
  for (const auto& p : pending)
    running_.emplace(fingerprint(p.config), p.trial);
  for (const auto& c : ctx.measured)
    measured_.insert(fingerprint(c));
  std::unordered_map<std::string, bool> failure_seen;
  for (size_t i = 0; i < history.size(); ++i) {
    const auto& h = history[i];
    auto key = fingerprint(h.config);
    trials_of_[key].push_back(int(i));
    const bool teaches = h.status == trial_status::failed && !h.retryable()
                         && h.failure == failure_kind::config_invalid && !h.blamed.empty();
    if (!teaches)
      continue;
    // A repeat of the same failure teaches nothing new: the first one is cited.
    key += char(h.failure);
    for (const auto& b : h.blamed)
      key += "," + b;
    if (failure_seen.emplace(key, true).second)
      failures_.push_back(int(i));
  }
}

bool safety_guards::available(const training_config& c) const {
  return measured_.empty() || measured_.count(fingerprint(c)) > 0;
}

std::optional<std::string> safety_guards::constraint(const training_config& c) const {
  if (const auto offending = outside_search_space(ctx_.search, ctx_.initial, c))
    return "outside the search space (" + *offending + ")";
  if (!available(c))
    return std::string(unavailable_reason);
  auto v = check_megatron_rules(ctx_.model, c, ctx_.world_size);
  if (!v.empty())
    return "violates a Megatron rule: " + v.front().message;
  return std::nullopt;
}

std::optional<std::string> safety_guards::duplicate(const training_config& c) const {
  if (const auto run = running_.find(fingerprint(c)); run != running_.end())
    return "already running as trial " + std::to_string(run->second);
  int tries = 0;
  bool only_retryable = ctx_.retry_transient;
  const auto same = trials_of_.find(fingerprint(c));
  if (same == trials_of_.end())
    return std::nullopt;
  for (int i : same->second) {
    ++tries;
    only_retryable = only_retryable && history_[i].retryable();
    if (!ctx_.retry_transient || !history_[i].retryable())
      return "duplicate of trial " + std::to_string(trial_number(history_, size_t(i)));
  }
  if (tries >= 2 || (tries == 1 && !only_retryable))
    return "duplicate: already retried after a transient failure";
  return std::nullopt;
}

std::optional<std::string> safety_guards::known_failure(const training_config& c) const {
  // An OOM's lesson is the memory screen's: it knows what fitted since.
  if (auto lesson = memory_.oom_lesson_for(c))
    return std::move(lesson->text);
  for (int i : failures_) {
    const auto& h = history_[i];
    const auto trial = [&, i] { return "trial " + std::to_string(trial_number(history_, size_t(i))); };
    if (h.failure == failure_kind::config_invalid) {
      bool same = true;
      for (const auto& name : h.blamed) {
        const auto* key = find_config_key(name);
        same = same && (key ? key->read(c) == key->read(h.config)
                            : get_value(c, name) == get_value(h.config, name));
      }
      if (same)
        return "known failure: same values as " + trial() + " for the blamed parameters";
    }
  }
  return std::nullopt;
}

std::optional<std::string> safety_guards::memory(const training_config& c,
                                                 const perf_prediction& p) const {
  return memory_.check(c, p);
}

std::optional<std::string> safety_guards::check(const training_config& c,
                                                const perf_prediction& p) const {
  if (auto r = constraint(c)) return r;
  if (auto r = duplicate(c)) return r;
  if (auto r = known_failure(c)) return r;
  return memory(c, p);
}

} // namespace paratune
