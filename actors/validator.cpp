#include "actors/validator.hpp"

#include <deque>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "adapters/megatron/megatron_log_parser.hpp"
#include "adapters/process/child_process.hpp"
#include "adapters/process/gpu_monitor_line.hpp"
#include "core/trial_scoring.hpp"
#include "messages/codec.hpp"
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
    r.error_kind = to_string(log.errors.front().kind);
    r.error_message = log.errors.front().message;
  }
  if (exit_code == 0 && log.errors.empty() && score.scored > 0) {
    r.status = "succeeded";
    r.tflops_per_gpu = score.tflops_per_gpu;
    r.iteration_ms = score.iteration_ms;
    r.mfu = t.peak_tflops > 0 ? score.tflops_per_gpu / t.peak_tflops : 0;
    r.peak_memory_mib = peak_memory(t);
    r.gpu_util_pct = t.gpu_util_n > 0 ? t.gpu_util_sum / t.gpu_util_n : 0;
    r.iterations_scored = score.scored;
  } else {
    r.status = "failed";
    if (r.error_message.empty())
      r.error_message = exit_code == 0 ? "no iteration could be scored"
                                       : "exit status " + std::to_string(exit_code);
    r.reason = r.error_message;
  }
  return r;
}

void on_line(caf::event_based_actor* self, const agent_deps& deps, running_trial& t,
             const std::string& line) {
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
    publish_only(self, deps, topics::telemetry(t.session, t.proposal.trial),
                 wire::make_envelope(t.session, t.proposal.trial, tm));
  }
}

void launch(caf::stateful_actor<validator_state>* self, const agent_deps& deps,
            const std::string& session, const wire::proposal& p,
            const wire::session_opened& opened) {
  auto t = std::make_shared<running_trial>();
  t->session = session;
  t->proposal = p;
  precision prec = precision::bf16;
  parse_precision(opened.precision, prec);
  t->peak_tflops = wire::from_wire(opened.cluster).device.peak_tflops(prec);
  t->memory_limit_mib = opened.cluster.hbm_gib * 1024;
  const auto key = key_of(session, p.trial);
  self->state.running[key] = t;
  wire::trial_started st{p.trial, p.config, p.argv};
  store_and_publish(self, deps, topics::trial_state(session, p.trial),
                    wire::make_envelope(session, p.trial, st));
  auto weak = caf::actor_cast<caf::weak_actor_ptr>(self);
  auto forward = [weak](auto... xs) {
    if (auto me = caf::actor_cast<caf::actor>(weak))
      caf::anon_send(me, xs...);
  };
  try {
    t->process = std::make_unique<child_process>(
      p.argv, [=](const std::string& line) { forward(line_atom_v, key, line); },
      [=](int code) { forward(exited_atom_v, key, code); });
  } catch (const std::exception& e) {
    t->tail.push_back(std::string("launch failed: ") + e.what());
    self->send(self, exited_atom_v, key, 127);
  }
}

} // namespace

caf::behavior validator(caf::stateful_actor<validator_state>* self, agent_deps deps) {
  self->attach_functor([self] {
    for (auto& [_, t] : self->state.running)
      if (t->process)
        t->process->terminate(500);
  });
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      auto e = decode_bus(self->name(), topic, payload);
      if (!e || e->type != wire::type_name<wire::proposal>())
        return;
      wire::proposal p;
      try {
        p = wire::body_of<wire::proposal>(*e);
      } catch (const wire::decode_error& err) {
        spdlog::warn("validator: {}", err.what());
        return;
      }
      const auto session = e->session;
      if (p.exhausted || p.argv.empty() || self->state.running.count(key_of(session, p.trial)))
        return;
      with_history(self, deps, session, [=](std::vector<wire::envelope> history) {
        const auto* opened = find_first(history, wire::type_name<wire::session_opened>());
        for (const auto& h : history)
          if (h.trial == p.trial && h.type == wire::type_name<wire::trial_result>())
            return; // already ran (a republished proposal)
        if (!opened || self->state.running.count(key_of(session, p.trial)))
          return;
        launch(self, deps, session, p, wire::body_of<wire::session_opened>(*opened));
      });
    },
    [=](line_atom, const std::string& key, const std::string& line) {
      auto it = self->state.running.find(key);
      if (it != self->state.running.end())
        on_line(self, deps, *it->second, line);
    },
    [=](exited_atom, const std::string& key, int code) {
      auto it = self->state.running.find(key);
      if (it == self->state.running.end())
        return;
      auto t = it->second;
      self->state.running.erase(it);
      t->parser.finish();
      auto r = result_of(*t, code);
      store_and_publish(self, deps, topics::trial_state(t->session, r.trial),
                        wire::make_envelope(t->session, r.trial, r));
    },
  };
}

} // namespace paratune
