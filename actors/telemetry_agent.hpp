#pragma once

#include <map>
#include <memory>
#include <string>

#include <caf/fwd.hpp>

#include "actors/agent.hpp"

namespace paratune {

struct trial_telemetry; // defined in telemetry_agent.cpp

/// The telemetry agent. Subscribes to "output." and "trial."; turns each
/// running trial's output lines (its own Megatron-LM parser per trial) and,
/// when the trial's pool names a dcgm-exporter, its GPUs' readings (a
/// scrape every dcgm_period_s from trial_started to trial_result; a URL
/// with `{host}` is scraped on every node Slurm gave the job, from the
/// validator's trial_job with its hosts, GPU i of node n as GPU
/// n * gpus_per_node + i, the pool's or else the cluster's) into
/// metric series: TFLOP/s per GPU, iteration time, loss and reserved memory
/// from the log; utilisation, tensor activity, graphics engine activity,
/// framebuffer, power and SM clock per GPU. When the trial's result comes
/// it records each series as a metric_series on "metrics.<session>.<trial>"
/// (a long series also every flush_points points on the way, and the log's
/// series every live_store_ms while the trial runs, so that the dashboard
/// draws a running trial's throughput as it goes).
struct telemetry_agent_state : basic_agent_state<telemetry_agent_actor> {
  explicit telemetry_agent_state(telemetry_agent_actor::pointer self);
  ~telemetry_agent_state() override;

  void on_started(const std::string& session, const wire::trial_started& s);
  void on_output(const std::string& session, const wire::trial_output& o);
  void on_result(const std::string& session, const wire::trial_result& r);
  /// Slurm placed the trial (a trial_job with its hosts): a `{host}`
  /// exporter URL is scraped on each of them from now on.
  void on_placed(const std::string& session, const wire::trial_job& j);
  /// Starts scraping the pool's dcgm-exporter, if it has one.
  void watch_gpus(const std::string& key, const wire::session_opened* job,
                  const std::string& pool);
  /// Scrapes from now on, once the exporters' URLs are known.
  void start_scraping(const std::string& key);
  /// One scrape of a trial's dcgm-exporters (one per node the job got),
  /// then the next one scheduled.
  void scrape(const std::string& key);
  /// Records the series of `t`: every one (`all`), or those past flush_points;
  /// stored and published, or only stored (`publish` false: the bus is going).
  void record(trial_telemetry& t, bool all, bool publish = true);
  /// The runtime is stopping: what running trials gathered is stored, since
  /// a trial_result still in the mailbox would not be read.
  void on_shutdown();

  /// A series longer than this is recorded before the trial ends.
  static constexpr size_t flush_points = 1000;
  /// A running trial's log series (TFLOP/s, iteration time, loss, memory)
  /// are stored at least this often while new points come.
  static constexpr int64_t live_store_ms = 5000;

  /// Trials now running, by "<session>/<trial>".
  std::map<std::string, std::unique_ptr<trial_telemetry>> trials;
  static inline const char* name = "telemetry_agent";
};

telemetry_agent_actor::behavior_type
telemetry_agent(telemetry_agent_actor::stateful_pointer<telemetry_agent_state> self,
                agent_deps deps);

} // namespace paratune
