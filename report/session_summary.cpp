#include "report/session_summary.hpp"

#include "decisions/trial_command.hpp"
#include "report/readable_ledger.hpp"

#include "core/tuning/safety_guards.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <ctime>
#include <map>

#include "core/best_choice.hpp"
#include "core/full_run_cost.hpp"
#include "core/human_units.hpp"
#include "core/model_flops_utilization.hpp"
#include "report/baseline_value.hpp"
#include "report/session_answer.hpp"
#include "core/shell_quote.hpp"
#include "core/megatron_args.hpp"
#include "frameworks/framework.hpp"
#include "core/tuning/safety_guards.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"

namespace paratune {

namespace {


full_run_cost cost_at(const session_summary& s, const trial_row& r) {
  const auto c = wire::from_wire(r.config);
  return cost_of_training(s.job.tokens, c.gbs, c.seq, r.iteration_ms, s.job.world_size);
}

double tuning_gpu_hours(const session_summary& s) {
  double h = 0;
  for (const auto& r : s.trials)
    h += r.gpu_hours;
  return h;
}

} // namespace

std::optional<full_run_value> full_run_of(const session_summary& s) {
  if (s.job.tokens <= 0 || !s.best || !s.first_success)
    return std::nullopt;
  full_run_value v;
  v.best = cost_at(s, *s.best);
  v.first = cost_at(s, *s.first_success);
  v.tuning_gpu_hours = tuning_gpu_hours(s);
  if (v.best.gpu_hours <= 0 || v.first.gpu_hours <= 0)
    return std::nullopt; // a stored result without its iteration time
  return v;
}

nlohmann::json full_run_json(const session_summary& s) {
  const auto v = full_run_of(s);
  if (!v)
    return nullptr;
  const auto cost = [](const full_run_cost& c) {
    return nlohmann::json{{"iterations", c.iterations}, {"days", c.days}, {"gpu_hours", c.gpu_hours}};
  };
  nlohmann::json j = {{"tokens", s.job.tokens},
                      {"best", cost(v->best)},
                      {"first", cost(v->first)},
                      {"gpu_hours_saved", v->first.gpu_hours - v->best.gpu_hours},
                      {"tuning_gpu_hours", v->tuning_gpu_hours}};
  if (auto b = baseline_json(s); !b.is_null())
    j["baseline"] = std::move(b);
  return j;
}

trial_row row_of(const wire::trial_result& r, const wire::proposal* proposal) {
  trial_row row;
  row.index = r.trial;
  row.config = r.config;
  row.status = r.status;
  row.mfu = r.mfu;
  row.tflops_per_gpu = r.tflops_per_gpu;
  row.peak_memory_mib = r.peak_memory_mib;
  row.reason = r.reason;
  row.stop = r.stop;
  row.started_at_ms = r.started_at_ms;
  row.ended_at_ms = r.ended_at_ms;
  row.iterations_scored = r.iterations_scored;
  row.gpu_hours = r.gpu_hours;
  row.pool = r.pool;
  row.iteration_ms = r.iteration_ms;
  row.queued_ms = r.queued_ms;
  row.retry_of = r.retry_of;
  row.failure = r.error_kind;
  row.relay = r.relay;
  row.memory_limit_mib = r.memory_limit_mib;
  if (proposal) {
    row.change = proposal->change;
    row.predicted_tflops = proposal->predicted_tflops;
    if (r.status == trial_status::succeeded)
      row.reason = proposal->why;
  } else if (r.status == trial_status::skipped) {
    row.change = "Run the initial configuration."; // refused before launch: no proposal
  }
  return row;
}

std::vector<measured_option> measured_options(const session_summary& s) {
  std::vector<measured_option> out;
  for (const auto& r : s.trials)
    if (r.measured())
      out.push_back({r.index, r.tflops_per_gpu, r.peak_memory_mib, r.memory_limit_mib,
                     non_default_keys(r.config)});
  return out;
}

void choose_best_of(session_summary& s) {
  const auto options = measured_options(s);
  s.choice = choose_best(options);
  s.tie_text = tie_sentence(s.choice, options);
  s.best.reset();
  for (const auto& r : s.trials)
    if (r.index == s.choice.trial && r.measured())
      s.best = r;
}

session_summary summarize(const session_ledger& ledger) {
  session_summary s;
  std::optional<trial_row> incumbent;  // the highest measurement so far
  s.session = ledger.session();
  s.model = ledger.llm_usage();
  if (const auto* job = ledger.job())
    s.job = *job;
  if (ledger.ended()) {
    s.state = ledger.end()->state;
    s.end_text = ledger.end()->text;
  }
  for (const auto& [_, t] : ledger.trials()) {
    if (!t.result)
      continue;
    auto row = row_of(*t.result, t.proposal ? &*t.proposal : nullptr);
    if (t.diagnosis) {
      row.reason = t.diagnosis->summary;
      row.failure = t.diagnosis->kind;
    }
    // Against the best measured before it: a prediction below that is an
    // exploration, whatever group the proposal came from (a retry is not).
    if (incumbent && row.predicted_tflops > 0 && row.retry_of == 0
        && row.predicted_tflops < incumbent->tflops_per_gpu) {
      row.exploration = true;
      row.incumbent_tflops = incumbent->tflops_per_gpu;
      row.incumbent = incumbent->index;
    }
    s.trials.push_back(row);
    if (!row.measured())
      continue;
    if (!s.first_success)
      s.first_success = row;
    if (!incumbent || row.tflops_per_gpu > incumbent->tflops_per_gpu)
      incumbent = row;
  }
  choose_best_of(s);
  return s;
}

session_summary summarize(const std::string& session, const std::vector<wire::envelope>& history) {
  auto s = summarize(readable_ledger_of({}, history));
  s.session = session; // also when the history is empty
  return s;
}

std::string own_args_key(const std::string& framework) {
  const auto* f = framework_named(framework);
  if (!f || f->args_field() == launch_field::framework_args)
    return {};
  return to_string(f->args_field());
}

std::vector<std::string> trainer_args_of(const session_summary& s, const wire::config_map& c) {
  const auto* f = framework_named(s.job.framework);
  if (!f)
    return {};
  return trainer_args_for(*f, s.job, wire::from_wire(c));
}

std::vector<std::string> production_args_of(const session_summary& s, const wire::config_map& c) {
  const auto* f = framework_named(s.job.framework);
  return f ? production_args(trainer_args_of(s, c), f->measuring_flags())
           : std::vector<std::string>{};
}

env_list framework_env_of(const session_summary& s, const wire::config_map& c) {
  const auto* f = framework_named(s.job.framework);
  return f ? f->environment(c, false, {}) : env_list{};
}

std::string framework_title_of(const session_summary& s) {
  const auto* f = framework_named(s.job.framework);
  return f ? std::string(f->title()) : s.job.framework;
}

bool has_replay_pool(const wire::session_opened& job) {
  for (const auto& p : job.pools)
    if (p.kind == pool_kind::replay)
      return true;
  return false;
}

int refused_unavailable(const session_summary& s) {
  int n = 0;
  for (const auto& r : s.trials)
    n += r.status == trial_status::skipped && r.reason.rfind(unavailable_reason, 0) == 0;
  return n;
}

nlohmann::json to_json(const session_summary& s) {
  nlohmann::json j;
  j["session"] = s.session;
  j["state"] = to_string(s.state);
  if (!s.end_text.empty())
    j["ended_because"] = s.end_text;
  if (s.best) {
    j["best"] = {{"trial", s.best->index},
                 {"config", s.best->config},
                 {"mfu", s.best->mfu},
                 {"tflops_per_gpu", s.best->tflops_per_gpu},
                 {"peak_memory_mib", s.best->peak_memory_mib},
                 {"framework", s.job.framework},
                 {"trainer_args", trainer_args_of(s, s.best->config)}};
    if (const auto key = own_args_key(s.job.framework); !key.empty())
      j["best"][key] = j["best"]["trainer_args"];
    if (s.first_success && s.first_success->tflops_per_gpu > 0)
      j["best"]["gain_over_first"] = s.best->tflops_per_gpu / s.first_success->tflops_per_gpu - 1;
  } else {
    j["best"] = nullptr;
  }
  j["gpu_hours"] = tuning_gpu_hours(s); // what the session's trials cost
  if (has_replay_pool(s.job))
    j["refused_unavailable"] = refused_unavailable(s);
  if (!s.model.agents.empty())
    j["model"] = model_json(s.model);
  if (auto v = full_run_json(s); !v.is_null())
    j["full_run"] = std::move(v);
  j["trials"] = nlohmann::json::array();
  for (const auto& r : s.trials) {
    nlohmann::json t = {{"index", r.index},
                        {"config", r.config},
                        {"change", r.change},
                        {"status", to_string(r.status)},
                        {"mfu", r.mfu},
                        {"tflops_per_gpu", r.tflops_per_gpu},
                        {"peak_memory_mib", r.peak_memory_mib},
                        {"iterations_scored", r.iterations_scored},
                        {"gpu_hours", r.gpu_hours},
                        {"pool", r.pool},
                        {"reason", r.reason},
                        {"started_at", utc_json(r.started_at_ms)},
                        {"ended_at", utc_json(r.ended_at_ms)}};
    if (r.stop != stop_reason::none)
      t["stop"] = to_string(r.stop);
    if (r.queued_ms > 0)
      t["queued_s"] = double(r.queued_ms) / 1000;
    if (r.retry_of > 0)
      t["retry_of"] = r.retry_of;
    if (r.exploration)
      t["exploration"] = {{"predicted_tflops", r.predicted_tflops},
                          {"best_before_tflops", r.incumbent_tflops},
                          {"best_before_trial", r.incumbent}};
    if (r.status == trial_status::failed && r.failure != failure_kind::none)
      t["failure"] = to_string(r.failure);
    if (r.relay.used)
      t["relay"] = {{"lines", r.relay.lines},           {"gaps", r.relay.gaps},
                    {"from_relay", r.relay.from_relay}, {"from_log", r.relay.from_log},
                    {"lost", r.relay.lost},             {"bad", r.relay.bad}};
    j["trials"].push_back(std::move(t));
  }
  return j;
}

trial_count trial_count_of(const session_ledger& ledger, int budget) {
  trial_count count{ledger.job() ? ledger.job()->trials : budget, {}};
  for (const auto& [number, t] : ledger.trials())
    if (t.result)
      count.saw(number, t.result->status);
  return count;
}

int trial_count::run_number(int index) const {
  return index - int(std::distance(skipped.begin(), skipped.lower_bound(index)));
}

std::string trial_count::label(int index, trial_status status) const {
  char buf[64];
  if (!spends_budget(status))
    std::snprintf(buf, sizeof buf, "trial %2d (no budget)", index);
  else if (const int run = run_number(index); run != index)
    std::snprintf(buf, sizeof buf, "trial %2d (run %d/%d)", index, run, budget);
  else
    std::snprintf(buf, sizeof buf, "trial %2d/%d", index, budget);
  return buf;
}

int trials_run(const session_summary& s) {
  return int(std::count_if(s.trials.begin(), s.trials.end(),
                           [](const trial_row& r) { return spends_budget(r.status); }));
}

int trials_skipped(const session_summary& s) {
  return int(s.trials.size()) - trials_run(s);
}

std::string render_trial_line(const trial_row& r, const trial_count& count) {
  const auto label = count.label(r.index, r.status);
  char buf[768];
  if (r.status == trial_status::stopped && r.measured())
    std::snprintf(buf, sizeof buf,
                  "%s  %-9s MFU %5s  %6.1f TFLOP/s/GPU  peak %6.0f MiB  %s\n"
                  "              %s: %s\n",
                  label.c_str(), to_string(r.status), mfu_text(r.mfu).c_str(), r.tflops_per_gpu,
                  r.peak_memory_mib, r.change.c_str(),
                  r.stop == stop_reason::cancelled ? "cancelled" : "stopped early",
                  r.reason.c_str());
  else if (r.status == trial_status::succeeded)
    std::snprintf(buf, sizeof buf,
                  "%s  %-9s MFU %5s  %6.1f TFLOP/s/GPU  peak %6.0f MiB  %s\n"
                  "              why: %s\n",
                  label.c_str(), to_string(r.status), mfu_text(r.mfu).c_str(), r.tflops_per_gpu,
                  r.peak_memory_mib, r.change.c_str(), r.reason.c_str());
  else
    std::snprintf(buf, sizeof buf, "%s  %-9s %s\n              why: %s\n", label.c_str(),
                  to_string(r.status), r.change.c_str(), r.reason.c_str());
  return buf;
}

namespace {

// What the trials cost, shown with or without `tokens:` (the full-run line
// repeats it beside the savings).
std::string tuning_cost_line(const session_summary& s) {
  char buf[96];
  const auto* f = framework_named(s.job.framework);
  const auto units = f ? f->units() : result_units{};
  std::snprintf(buf, sizeof buf, "tuning spent %.2f %.*s\n", tuning_gpu_hours(s),
                int(units.device_hours.size()), units.device_hours.data());
  return buf;
}

} // namespace

std::string render_text(const session_summary& s) {
  std::string out = "\nsession " + s.session + " " + to_string(s.state) + " after "
                    + count_of(trials_run(s), "trial") + " of a budget of "
                    + std::to_string(s.job.trials);
  if (const int skipped = trials_skipped(s); skipped > 0)
    out += ", and " + std::to_string(skipped) + " skipped (not run, no budget spent)";
  out += "\n";
  if (!s.end_text.empty())
    out += "why it ended: " + s.end_text + "\n";
  out += tuning_cost_line(s);
  if (!s.best)
    return out + "no trial succeeded\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, "best: trial %d, MFU %s, %.1f TFLOP/s/GPU, peak %.0f MiB\n",
                s.best->index, mfu_text(s.best->mfu).c_str(), s.best->tflops_per_gpu, s.best->peak_memory_mib);
  out += buf;
  if (!s.tie_text.empty())
    out += s.tie_text + "\n";
  if (s.first_success && s.first_success->tflops_per_gpu > 0) {
    std::snprintf(buf, sizeof buf, "gain over the first run (trial %d): %+.1f%%\n",
                  s.first_success->index,
                  100 * (s.best->tflops_per_gpu / s.first_success->tflops_per_gpu - 1));
    out += buf;
  }
  if (const auto v = full_run_of(s)) {
    std::snprintf(buf, sizeof buf,
                  "full run of %.3g tokens: %.1f days, %.0f GPU-hours with the best configuration; "
                  "%.1f days, %.0f GPU-hours with the first; %.0f GPU-hours saved, %.1f spent "
                  "tuning\n",
                  s.job.tokens, v->best.days, v->best.gpu_hours, v->first.days,
                  v->first.gpu_hours, v->first.gpu_hours - v->best.gpu_hours,
                  v->tuning_gpu_hours);
    out += buf;
    if (const auto b = baseline_sentence(s); !b.empty())
      out += b + "\n";
  }
  // The parallel sizes first, then the searched keys, then the rest.
  const auto answer = answer_of(s);
  out += "configuration:";
  for (const auto* list : {&answer->parallel, &answer->searched})
    for (const auto& [k, v] : *list)
      out += " " + k + "=" + v;
  if (!answer->other.empty()) {
    out += "\nother keys (not searched):";
    for (const auto& [k, v] : answer->other)
      out += " " + k + "=" + v;
  }
  // The production command, as export prints it: not the trial's own
  // arguments, whose tuning-only flags would end a real run early.
  out += "\nproduction command (its environment, then the " + framework_title_of(s)
         + " arguments; paratune export " + s.session + " prints it again):\n"
         + production_command_text(*answer);
  return out;
}

nlohmann::json utc_json(int64_t unix_ms) {
  if (unix_ms <= 0)
    return nullptr;
  const std::time_t secs = unix_ms / 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char day_time[40];
  std::strftime(day_time, sizeof day_time, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", day_time, int(unix_ms % 1000));
  return out;
}

} // namespace paratune
