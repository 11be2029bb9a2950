#include "actors/telemetry_agent.hpp"

#include <algorithm>
#include <chrono>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/trial_key.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"
#include "adapters/telemetry/dcgm_scrape.hpp"
#include "core/telemetry/dcgm_url.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

/// One running trial: its parser, its series so far, its GPUs' exporter.
struct trial_telemetry {
  std::string session;
  int trial = 0;
  megatron_log_parser parser;
  /// Points by (metric, GPU index; -1 for the log's metrics), in time order.
  std::map<std::pair<trial_metric, int>, std::vector<wire::metric_point>> series;
  /// The exporters to scrape: one, or one per node of the job; empty: none
  /// (yet: a `{host}` URL waits for the job's nodes).
  std::vector<std::string> dcgm_urls;
  std::string dcgm_template;                  ///< the pool's URL when it names {host}
  std::vector<std::string> hosts;             ///< the job's nodes, once Slurm ran it
  int gpus_per_node = 0;                      ///< GPU numbering across nodes
  bool scraping = false;
  std::chrono::milliseconds dcgm_period{5000};
  int scrape_failures = 0;
  int64_t last_live_store_ms = wall_clock_ms();  ///< when the log's series were last stored
};

namespace {

void add_point(trial_telemetry& t, trial_metric m, int gpu, double value) {
  t.series[{m, gpu}].push_back({wall_clock_ms(), value});
}

/// The log's metrics, read as the parser appends each record.
void read_log_into_series(trial_telemetry& t) {
  t.parser.on_iteration = [&t](const iteration_record& r) {
    if (r.tflops_per_gpu)
      add_point(t, trial_metric::tflops_per_gpu, -1, *r.tflops_per_gpu);
    add_point(t, trial_metric::iteration_ms, -1, r.elapsed_ms);
    if (auto loss = find_number(r, "lm loss"))
      add_point(t, trial_metric::loss, -1, *loss);
  };
  t.parser.on_memory = [&t](const memory_record& m) {
    add_point(t, trial_metric::max_reserved_mib, -1, m.max_reserved_mib);
  };
}

/// The scrape's timeout: short, so that a dead exporter holds this agent's
/// thread (and the output lines queued behind it) for at most 2 s, and never
/// longer than the period between scrapes.
dcgm_scrape_options scrape_options(std::chrono::milliseconds period) {
  dcgm_scrape_options o;
  o.total_timeout = std::min<std::chrono::milliseconds>(std::chrono::milliseconds(2000), period);
  o.connect_timeout = std::min(o.connect_timeout, o.total_timeout);
  return o;
}

} // namespace

telemetry_agent_state::telemetry_agent_state(telemetry_agent_actor::pointer self)
  : basic_agent_state(self) {
  on<wire::trial_started>([this](const wire::envelope& e, const wire::trial_started& s) {
    on_started(e.session, s);
  });
  on<wire::trial_output>([this](const wire::envelope& e, const wire::trial_output& o) {
    on_output(e.session, o);
  });
  on<wire::trial_result>([this](const wire::envelope& e, const wire::trial_result& r) {
    on_result(e.session, r);
  });
  on<wire::trial_job>([this](const wire::envelope& e, const wire::trial_job& j) {
    on_placed(e.session, j);
  });
}

telemetry_agent_state::~telemetry_agent_state() = default;

namespace {

// A trial is known from its first line or its trial_started, whichever
// comes first: output is published at once, trial_started only once stored.
trial_telemetry& trial_entry(telemetry_agent_state& a, const std::string& session, int trial) {
  auto& slot = a.trials[trial_key_of(session, trial)];
  if (!slot) {
    slot = std::make_unique<trial_telemetry>();
    slot->session = session;
    slot->trial = trial;
    read_log_into_series(*slot);
  }
  return *slot;
}

} // namespace

void telemetry_agent_state::on_started(const std::string& session, const wire::trial_started& s) {
  trial_entry(*this, session, s.trial);
  const auto key = trial_key_of(session, s.trial);
  with_job(session, [this, key, pool = s.pool](const wire::session_opened* job) {
    watch_gpus(key, job, pool);
  });
}

void telemetry_agent_state::watch_gpus(const std::string& key,
                                       const wire::session_opened* opened,
                                       const std::string& pool) {
  const auto it = trials.find(key);
  if (it == trials.end() || !opened || it->second->scraping || !it->second->dcgm_template.empty())
    return; // ended already, or not a tuning session, or watched already
  const auto& job = *opened;
  const auto* p = wire::pool_named(job, pool);
  if (!p || p->dcgm.empty())
    return;
  auto& t = *it->second;
  t.dcgm_period = std::chrono::milliseconds(int64_t(p->dcgm_period_s * 1000));
  if (names_job_hosts(p->dcgm)) {
    t.dcgm_template = p->dcgm;
    // GPU i of the k-th node is GPU k * (GPUs a node) + i: the pool's
    // gpus_per_node, else the cluster's.
    t.gpus_per_node = p->gpus_per_node > 0 ? p->gpus_per_node : job.cluster.devices_per_node;
  } else {
    t.dcgm_urls = {p->dcgm};
  }
  start_scraping(key);
}

void telemetry_agent_state::start_scraping(const std::string& key) {
  auto& t = *trials.at(key);
  if (t.scraping)
    return;
  if (!t.dcgm_template.empty()) {
    if (t.hosts.empty())
      return; // the job's nodes are not known yet
    for (const auto& host : t.hosts)
      t.dcgm_urls.push_back(dcgm_url_for_host(t.dcgm_template, host));
  }
  if (t.dcgm_urls.empty())
    return;
  t.scraping = true;
  self->send(self, scrape_atom_v, key);
}

void telemetry_agent_state::on_placed(const std::string& session, const wire::trial_job& j) {
  if (j.hosts.empty())
    return;
  const auto it = trials.find(trial_key_of(session, j.trial));
  if (it == trials.end())
    return; // ended already
  it->second->hosts = j.hosts;
  start_scraping(it->first);
}

void telemetry_agent_state::scrape(const std::string& key) {
  const auto it = trials.find(key);
  if (it == trials.end())
    return; // the trial ended: its timer ends with it
  auto& t = *it->second;
  // A blocking call on this actor's own thread (it runs detached), bounded
  // by scrape_options(): simpler than a helper actor and its messages, and
  // no scheduler thread shared with other agents waits on it.
  // One node after the other: each scrape is bounded (scrape_options), so a
  // dead node costs at most its timeout.
  for (size_t node = 0; node < t.dcgm_urls.size(); ++node) {
    const auto result = scrape_dcgm(t.dcgm_urls[node], scrape_options(t.dcgm_period));
    const int first_gpu = t.dcgm_template.empty() ? 0 : int(node) * t.gpus_per_node;
    if (const auto* s = std::get_if<dcgm_scrape>(&result)) {
      for (const auto& gpu : s->gpus)
        for (const auto& [metric, value] : gpu.values)
          add_point(t, metric, first_gpu + gpu.gpu, value);
    } else if (t.scrape_failures++ % 12 == 0) { // once a minute at the default period
      spdlog::warn("telemetry: trial {} of {}: {}", t.trial, t.session,
                   std::get<scrape_error>(result).message);
    }
  }
  record(t, false);
  self->delayed_send(self, t.dcgm_period, scrape_atom_v, key);
}

void telemetry_agent_state::on_output(const std::string& session, const wire::trial_output& o) {
  auto& t = trial_entry(*this, session, o.trial);
  for (const auto& line : o.lines) {
    t.parser.feed(line);
    t.parser.feed("\n");
  }
  record(t, false);
}

void telemetry_agent_state::on_result(const std::string& session, const wire::trial_result& r) {
  const auto it = trials.find(trial_key_of(session, r.trial));
  if (it == trials.end())
    return; // never ran (skipped), or recorded already
  auto t = std::move(it->second);
  trials.erase(it);
  t->parser.finish();
  record(*t, true);
}

void telemetry_agent_state::record(trial_telemetry& t, bool all, bool publish) {
  const int64_t now = wall_clock_ms();
  const bool live_due = now - t.last_live_store_ms >= live_store_ms;
  if (live_due)
    t.last_live_store_ms = now;
  for (auto& [id, points] : t.series) {
    const bool log_series = id.second < 0;
    if (points.empty() || (!all && points.size() < flush_points && !(live_due && log_series)))
      continue;
    wire::metric_series s{t.trial, id.first, unit_of(id.first), id.second, std::move(points)};
    points.clear();
    auto e = wire::make_envelope(t.session, t.trial, s);
    if (publish)
      store_and_publish(topics::metrics(t.session, t.trial), std::move(e));
    else
      store(std::move(e));
  }
}

void telemetry_agent_state::on_shutdown() {
  for (auto& [_, t] : trials)
    record(*t, true, false);
  trials.clear();
}

telemetry_agent_actor::behavior_type
telemetry_agent(telemetry_agent_actor::stateful_pointer<telemetry_agent_state> self,
                agent_deps deps) {
  self->state.start(std::move(deps));
  // The runtime stops the sessions first, then the agents: the result of a
  // session's last trial may still wait in this mailbox behind the exit.
  // The pool outlives the agents, so what was gathered is stored on the way out.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    self->state.on_shutdown();
    self->quit(msg.reason);
  });
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      self->state.dispatch(topic, payload);
    },
    [=](scrape_atom, const std::string& key) { self->state.scrape(key); },
  };
}

} // namespace paratune
