#include "actors/validator.hpp"

#include <deque>

#include <caf/all.hpp>

#include "adapters/megatron/megatron_log_parser.hpp"
#include "adapters/process/child_process.hpp"
#include "adapters/process/gpu_monitor_line.hpp"
#include "core/trial_scoring.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

/// One trial in flight: its process, its parser and what was seen so far.
struct running_trial {
  std::string session;
  wire::proposal proposal;
  double peak_tflops = 0;        ///< device peak, for MFU
  double memory_limit_mib = 0;
  megatron_log_parser parser;
  std::vector<iteration_sample> samples;
  double gpu_util_sum = 0;
  int gpu_util_n = 0;
  double monitor_peak_mib = 0;
  std::deque<std::string> tail;  ///< last lines, for the failure analyst
  std::unique_ptr<child_process> process;
};

namespace {

constexpr size_t tail_lines = 40;

std::string key_of(const std::string& session, int trial) {
  return session + "/" + std::to_string(trial);
}

double peak_memory(const running_trial& t) {
  if (t.monitor_peak_mib > 0)
    return t.monitor_peak_mib;
  double peak = 0;
  for (const auto& m : t.parser.log().memory)
    peak = std::max(peak, m.max_reserved_mib);
  return peak;
}

failure_kind failure_kind_of(log_error_kind k) {
  switch (k) {
    case log_error_kind::oom: return failure_kind::oom;
    case log_error_kind::nccl_timeout: return failure_kind::nccl_timeout;
    case log_error_kind::config_invalid: return failure_kind::config_invalid;
    case log_error_kind::nan: return failure_kind::nan;
    case log_error_kind::other: return failure_kind::other;
  }
  return failure_kind::other;
}

wire::trial_result result_of(const running_trial& t, int exit_code) {
  wire::trial_result r;
  r.trial = t.proposal.trial;
  r.config = t.proposal.config;
  r.exit_code = exit_code;
  r.memory_limit_mib = t.memory_limit_mib;
  r.log_tail.assign(t.tail.begin(), t.tail.end());
  const auto& log = t.parser.log();
  const auto score = score_iterations(t.samples);
  if (!log.errors.empty()) {
    r.error_kind = failure_kind_of(log.errors.front().kind);
    r.error_message = log.errors.front().message;
  }
  if (exit_code == 0 && log.errors.empty() && score.scored > 0) {
    r.status = trial_status::succeeded;
    r.tflops_per_gpu = score.tflops_per_gpu;
    r.iteration_ms = score.iteration_ms;
    r.mfu = t.peak_tflops > 0 ? score.tflops_per_gpu / t.peak_tflops : 0;
    r.peak_memory_mib = peak_memory(t);
    r.gpu_util_pct = t.gpu_util_n > 0 ? t.gpu_util_sum / t.gpu_util_n : 0;
    r.iterations_scored = score.scored;
  } else {
    r.status = trial_status::failed;
    if (r.error_message.empty())
      r.error_message = exit_code == 0 ? "no iteration could be scored"
                                       : "exit status " + std::to_string(exit_code);
    r.reason = r.error_message;
  }
  return r;
}

} // namespace

validator_state::validator_state(caf::event_based_actor* self) : agent_state(self) {
  on<wire::proposal>([this](const wire::envelope& e, wire::proposal p) {
    const auto session = e.session;
    if (p.exhausted || p.argv.empty() || running.count(key_of(session, p.trial)))
      return;
    with_history(session, [this, session, p](std::vector<wire::envelope> history) {
      consider(session, p, history);
    });
  });
}

validator_state::~validator_state() {
  for (auto& [_, t] : running)
    if (t->process)
      t->process->terminate(500);
}

void validator_state::consider(const std::string& session, const wire::proposal& p,
                               const std::vector<wire::envelope>& history) {
  for (const auto& h : history)
    if (h.trial == p.trial && h.type == wire::type_name<wire::trial_result>())
      return; // already ran (a republished proposal)
  const auto* opened = find_first<wire::session_opened>(history);
  if (!opened || running.count(key_of(session, p.trial)))
    return;
  launch(session, p, wire::body_of<wire::session_opened>(*opened));
}

void validator_state::on_line(const std::string& key, const std::string& line) {
  auto it = running.find(key);
  if (it == running.end())
    return;
  auto& t = *it->second;
  t.tail.push_back(line);
  if (t.tail.size() > tail_lines)
    t.tail.pop_front();
  if (auto g = parse_gpu_monitor_line(line)) {
    t.gpu_util_sum += g->utilization_pct;
    ++t.gpu_util_n;
    t.monitor_peak_mib = std::max(t.monitor_peak_mib, g->memory_used_mib);
    return;
  }
  const size_t before = t.parser.log().iterations.size();
  t.parser.feed(line);
  t.parser.feed("\n");
  const auto& its = t.parser.log().iterations;
  for (size_t i = before; i < its.size(); ++i) {
    const auto& it = its[i];
    const double tflops = it.tflops_per_gpu.value_or(0);
    t.samples.push_back({it.iteration, it.elapsed_ms, tflops});
    wire::telemetry tm{t.proposal.trial, it.iteration, it.elapsed_ms, tflops};
    publish_only(topics::telemetry(t.session, t.proposal.trial),
                 wire::make_envelope(t.session, t.proposal.trial, tm));
  }
}

void validator_state::launch(const std::string& session, const wire::proposal& p,
                             const wire::session_opened& opened) {
  auto t = std::make_shared<running_trial>();
  t->session = session;
  t->proposal = p;
  precision prec = precision::bf16;
  parse_precision(opened.precision, prec);
  t->peak_tflops = wire::from_wire(opened.cluster).device.peak_tflops(prec);
  t->memory_limit_mib = opened.cluster.hbm_gib * 1024;
  const auto key = key_of(session, p.trial);
  running[key] = t;
  wire::trial_started st{p.trial, p.config, p.argv};
  store_and_publish(topics::trial_state(session, p.trial),
                    wire::make_envelope(session, p.trial, st));
  try {
    t->process = launch_child(p.argv, key);
  } catch (const std::exception& e) {
    t->tail.push_back(std::string("launch failed: ") + e.what());
    self->send(self, exited_atom_v, key, 127);
  }
}

void validator_state::on_exit(const std::string& key, int exit_code) {
  auto it = running.find(key);
  if (it == running.end())
    return;
  auto t = it->second;
  running.erase(it);
  t->parser.finish();
  auto r = result_of(*t, exit_code);
  store_and_publish(topics::trial_state(t->session, r.trial),
                    wire::make_envelope(t->session, r.trial, r));
}

caf::behavior validator(caf::stateful_actor<validator_state>* self, agent_deps deps) {
  self->state.start(std::move(deps));
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      self->state.dispatch(topic, payload);
    },
    [=](line_atom, const std::string& key, const std::string& line) {
      self->state.on_line(key, line);
    },
    [=](exited_atom, const std::string& key, int code) { self->state.on_exit(key, code); },
  };
}

} // namespace paratune
