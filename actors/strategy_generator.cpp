#include "actors/strategy_generator.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "core/megatron_args.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

namespace {

int finished_trials(const std::vector<wire::envelope>& history) {
  int n = 0;
  for (const auto& e : history)
    if (e.type == wire::type_name<wire::trial_result>())
      ++n;
  return n;
}

const wire::envelope* stored_proposal(const std::vector<wire::envelope>& history, int trial) {
  for (const auto& e : history)
    if (e.type == wire::type_name<wire::proposal>() && e.trial == trial)
      return &e;
  return nullptr;
}

std::vector<std::string> launch_command(const wire::session_opened& s,
                                        const training_config& config, int trial) {
  megatron_launch l;
  l.model = wire::from_wire(s.model);
  l.config = config;
  parse_precision(s.precision, l.prec);
  l.train_iters = s.train_iters;
  std::vector<std::string> argv = {
    s.sim_path, "--sim-cluster", s.sim_cluster, "--sim-world-size", std::to_string(s.world_size),
    "--sim-seed", std::to_string(s.seed * 1000 + uint64_t(trial)),
    "--sim-time-scale", std::to_string(s.sim_time_scale),
    "--sim-failure-rate", std::to_string(s.sim_failure_rate)};
  for (auto& a : render_megatron_args(l))
    argv.push_back(std::move(a));
  return argv;
}

/// The initial configuration, refused before launch, becomes a skipped trial.
std::optional<wire::trial_result> skipped_initial(const wire::analysis_report& r,
                                                  int trial) {
  if (trial != 1)
    return std::nullopt;
  for (const auto& s : r.rejected)
    if (s.group == "initial") {
      wire::trial_result t;
      t.trial = 1;
      t.config = s.config;
      t.status = "skipped";
      t.reason = "not launched: " + s.rejected;
      return t;
    }
  return std::nullopt;
}

wire::proposal make_proposal(const wire::analysis_report& r, const wire::session_opened& s,
                             int trial) {
  wire::proposal p;
  p.trial = trial;
  p.health = r.health;
  p.reasoning = r.reasoning;
  for (const auto& x : r.ranked)
    p.ranked.push_back(x.text);
  if (r.ranked.empty()) {
    p.exhausted = true;
    return p;
  }
  const auto& best = r.ranked.front();
  p.config = best.config;
  p.change = best.text;
  p.group = best.group;
  p.why = best.why;
  p.predicted_tflops = best.predicted_tflops;
  p.predicted_peak_mib = best.predicted_peak_mib;
  p.argv = launch_command(s, wire::from_wire(best.config), trial);
  return p;
}

void generate(caf::event_based_actor* self, const agent_deps& deps, const std::string& session,
              const wire::analysis_report& report, const std::vector<wire::envelope>& history) {
  const auto* opened = find_first(history, wire::type_name<wire::session_opened>());
  if (!opened)
    return;
  const int trial = finished_trials(history) + 1;
  if (report.after_trial + 1 != trial)
    return; // a stale report: the session has moved on
  if (const auto* stored = stored_proposal(history, trial)) {
    publish_only(self, deps, topics::proposal(session), *stored);
    return;
  }
  try {
    auto s = wire::body_of<wire::session_opened>(*opened);
    if (auto skipped = skipped_initial(report, trial)) {
      store_and_publish(self, deps, topics::trial_state(session, trial),
                        wire::make_envelope(session, trial, *skipped));
      return;
    }
    auto p = make_proposal(report, s, trial);
    store_and_publish(self, deps, topics::proposal(session), wire::make_envelope(session, trial, p));
  } catch (const std::exception& e) {
    spdlog::error("strategy_generator: session {}: {}", session, e.what());
  }
}

} // namespace

caf::behavior strategy_generator(caf::stateful_actor<generator_state>* self, agent_deps deps) {
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      auto e = decode_bus(self->name(), topic, payload);
      if (!e || e->type != wire::type_name<wire::analysis_report>())
        return;
      wire::analysis_report report;
      try {
        report = wire::body_of<wire::analysis_report>(*e);
      } catch (const wire::decode_error& err) {
        spdlog::warn("strategy_generator: {}", err.what());
        return;
      }
      const auto session = e->session;
      with_history(self, deps, session, [=](std::vector<wire::envelope> history) {
        generate(self, deps, session, report, history);
      });
    },
  };
}

} // namespace paratune
