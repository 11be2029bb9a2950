#include "report/session_answer.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/production_command.hpp"
#include "core/secret_env.hpp"
#include "core/shell_quote.hpp"
#include "messages/conversions.hpp"
#include "report/baseline_value.hpp"
#include "report/chart_points.hpp"
#include "report/session_report.hpp"

namespace paratune {

std::vector<std::string> best_production_args(const session_summary& s) {
  return production_args_of(s, s.best->config);
}

env_list best_production_environment(const session_summary& s) {
  std::map<std::string, std::string> pool_env;
  for (const auto& p : s.job.pools)
    if (p.name == s.best->pool)
      pool_env = p.env;
  std::set<std::string> secrets(s.job.secret_env.begin(), s.job.secret_env.end());
  secrets.insert(always_secret_env().begin(), always_secret_env().end());
  return production_environment(framework_env_of(s, s.best->config), pool_env, s.job.env,
                                secrets);
}

std::optional<session_answer> answer_of(const session_summary& s) {
  if (!s.best)
    return std::nullopt;
  const auto& b = *s.best;
  session_answer a;
  a.trial = b.index;
  for (const auto& [k, v] : b.config)
    a.config.emplace_back(k, v);
  best_config_layout(s, b.config, a);
  a.tie = s.tie_text;
  a.tflops_per_gpu = b.tflops_per_gpu;
  a.mfu_pct = 100 * b.mfu;
  a.peak_memory_mib = b.peak_memory_mib;
  if (s.first_success && s.first_success->tflops_per_gpu > 0) {
    a.first_trial = s.first_success->index;
    a.gain_over_first_pct = 100 * (b.tflops_per_gpu / s.first_success->tflops_per_gpu - 1);
  }
  if (const auto p = baseline_pace_of(s)) {
    a.gain_over_baseline_pct = 100 * (b.tflops_per_gpu / p->tflops_per_gpu - 1);
    a.baseline_source = p->source == baseline_source::session_trial
                          ? fmt::format("trial {} of this session", p->trial)
                          : "the job file";
  }
  try {
    a.command = shell_command(best_production_args(s));
  } catch (const std::exception& e) {  // a job whose model does not render
    a.command = "# no " + framework_title_of(s) + " arguments: " + e.what();
  }
  a.environment = best_production_environment(s);
  if (s.job.tokens > 0)
    a.full_run = full_run_sentences(s);
  return a;
}

void best_config_layout(const session_summary& s, const wire::config_map& c,
                        session_answer& into) {
  std::set<std::string> placed;
  const auto take = [&](const std::string& key, auto& list) {
    if (const auto it = c.find(key); it != c.end() && placed.insert(key).second)
      list.emplace_back(key, it->second);
  };
  for (const auto& key : {"tp", "pp", "dp", "cp", "ep", "vpp", "mbs"}) {
    if (std::string(key) != "dp") {
      take(key, into.parallel);
      continue;
    }
    // dp is no key of its own: the world size over tp x pp x cp.
    try {
      if (const int dp = wire::from_wire(c).data_parallel(std::max(1, s.job.world_size)); dp > 0)
        into.parallel.emplace_back("dp", std::to_string(dp));
    } catch (const std::exception&) {
      // a framework's own keys that training_config does not read: no dp
    }
  }
  std::vector<std::string> searched;
  for (const auto& [key, _] : s.job.search)
    searched.push_back(key);
  if (searched.empty())
    searched = varying_keys(s);
  std::vector<std::string> ordered;
  for (const auto& key : config_keys())
    if (std::find(searched.begin(), searched.end(), key) != searched.end())
      ordered.push_back(key);
  for (const auto& key : searched)  // a framework's own keys, after the known ones
    if (!find_config_key(key))
      ordered.push_back(key);
  for (const auto& key : ordered)
    take(key, into.searched);
  for (const auto& key : config_keys())
    take(key, into.other);
  for (const auto& [key, _] : c)
    take(key, into.other);
}

std::string searched_keys_caption(const session_summary& s) {
  return s.job.search.empty()
           ? "The parallel sizes, then the keys that changed across the trials (the job names "
             "no search space)."
           : "The parallel sizes, then the keys the job searched.";
}

std::string parallel_sizes_text(const session_answer& a) {
  std::string out;
  for (const auto& [key, value] : a.parallel)
    out += (out.empty() ? "" : ", ") + key + " " + value;
  return out;
}

std::string production_command_text(const session_answer& a) {
  std::string out;
  for (const auto& [name, value] : a.environment)
    out += "export " + name + "=" + shell_quote(value) + "\n";
  return out + a.command + "\n";
}

std::string gain_text(double pct) { return fmt::format("{:+.1f}%", pct); }

std::vector<std::pair<std::string, std::string>> answer_figures(const session_answer& a) {
  std::vector<std::pair<std::string, std::string>> out = {
    {"Best trial", std::to_string(a.trial)},
    {"Throughput", fmt::format("{:.1f} TFLOP/s per GPU", a.tflops_per_gpu)},
    {"MFU", fmt::format("{:.1f}%", a.mfu_pct)},
    {"Peak memory", a.peak_memory_mib > 0 ? fmt::format("{:.0f} MiB", a.peak_memory_mib)
                                          : "not reported"}};
  if (a.gain_over_first_pct)
    out.emplace_back("Gain over the first run",
                     gain_text(*a.gain_over_first_pct)
                       + fmt::format(" (against trial {})", a.first_trial));
  out.emplace_back("Gain over the baseline",
                   a.gain_over_baseline_pct
                     ? gain_text(*a.gain_over_baseline_pct) + " (baseline measured by "
                         + a.baseline_source + ")"
                     : "none: the job names no baseline, or no trial ran it and the job file "
                       "gives no tflops_per_gpu");
  if (!a.parallel.empty())
    out.emplace_back("Parallel sizes", parallel_sizes_text(a));
  return out;
}

nlohmann::json answer_json(const session_summary& s) {
  const auto a = answer_of(s);
  if (!a)
    return nullptr;
  auto config = nlohmann::json::object();
  for (const auto& [k, v] : a->config)
    config[k] = v;
  auto env = nlohmann::json::object();
  for (const auto& [k, v] : a->environment)
    env[k] = v;
  const auto optional = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  nlohmann::json j = {{"trial", a->trial},
          {"config", config},
          {"tflops_per_gpu", a->tflops_per_gpu},
          {"mfu_pct", a->mfu_pct},
          {"peak_memory_mib", a->peak_memory_mib},
          {"first_trial", a->first_trial},
          {"gain_over_first_pct", optional(a->gain_over_first_pct)},
          {"gain_over_baseline_pct", optional(a->gain_over_baseline_pct)},
          {"baseline_source", a->baseline_source.empty() ? nlohmann::json(nullptr)
                                                         : nlohmann::json(a->baseline_source)},
          {"framework", s.job.framework},
          {"trainer_args", a->command.rfind('#', 0) == 0 ? nlohmann::json(nullptr)
                                                          : nlohmann::json(best_production_args(s))},
          {"env", env},
          {"full_run", a->full_run},
          {"tie_break", a->tie.empty() ? nlohmann::json(nullptr) : nlohmann::json(a->tie)}};
  if (const auto key = own_args_key(s.job.framework); !key.empty())
    j[key] = j["trainer_args"]; // the key scripts read before there were others
  return j;
}

} // namespace paratune
