// The telemetry agent in a real runtime (loopback TCP bus, RocksDB pool):
// a trial's real Megatron-LM lines arrive on "output.", its pool's
// dcgm-exporter is a real local HTTP server serving recorded output, and
// after trial_result the pool holds the trial's metric series.

#include <fstream>
#include <set>
#include <thread>

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include "actors/runtime.hpp"
#include "actors/telemetry_agent.hpp"
#include "messages/codec.hpp"
#include "messages/topics.hpp"
#include "messages/type_ids.hpp"
#include "tests/fixtures/local_http_server.hpp"
#include "tests/fixtures/runtime_test.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using namespace std::chrono_literals;

/// Lines [first, last] (1-based) of a data/ file.
std::vector<std::string> lines_of(const std::string& path, int first, int last) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line;
  for (int n = 1; std::getline(in, line) && n <= last; ++n)
    if (n >= first)
      out.push_back(line);
  return out;
}

struct telemetry_agent_test : test::runtime_test {
  void store(const wire::envelope& e) {
    caf::scoped_actor self{*sys};
    self->request(rt->deps().pool, 10s, append_atom_v, e)
      .receive([](uint64_t) {}, [](caf::error& err) { FAIL() << to_string(err); });
  }
  void publish(const std::string& topic, const wire::envelope& e) {
    caf::scoped_actor self{*sys};
    self->send(rt->deps().egress, publish_atom_v, topic, wire::pack(e));
  }
  /// The session's metric_series, once `count` of them are stored.
  std::vector<wire::metric_series> series_of(const std::string& session, size_t count) {
    std::vector<wire::metric_series> out;
    for (auto deadline = std::chrono::steady_clock::now() + 20s;
         out.size() < count && std::chrono::steady_clock::now() < deadline;) {
      std::this_thread::sleep_for(100ms);
      out.clear();
      auto history = rt->history(session);
      for (const auto& e : history ? *history : std::vector<wire::envelope>{})
        if (e.type == wire::type_name<wire::metric_series>())
          out.push_back(wire::body_of<wire::metric_series>(e));
    }
    return out;
  }
};

const wire::metric_series* find_series(const std::vector<wire::metric_series>& all,
                                       trial_metric m, int gpu) {
  for (const auto& s : all)
    if (s.metric == m && s.gpu == gpu)
      return &s;
  return nullptr;
}

std::vector<double> values_of(const wire::metric_series& s) {
  std::vector<double> out;
  for (const auto& p : s.points)
    out.push_back(p.value);
  return out;
}

TEST_F(telemetry_agent_test, turns_megatron_lines_and_dcgm_scrapes_into_stored_series) {
  test::local_http_server exporter(
    "metrics_server.py",
    {"--file", test::data_dir() + "/dcgm/nvidia_docs_a100_mig_under_load.prom"});
  const std::string session = "telemetry-1";
  wire::session_opened opened;
  opened.job_name = "telemetry";
  wire::pool_wire pool;
  pool.name = "a100";
  pool.dcgm = exporter.url() + "/metrics";
  pool.dcgm_period_s = 0.2;
  opened.pools = {pool};
  store(wire::make_envelope(session, 0, opened));

  publish(topics::trial_state(session, 1),
          wire::make_envelope(session, 1, wire::trial_started{1, {}, {}, "a100"}));
  // Run 1 of the log (8 GPUs): ten iteration lines, start-up and memory lines between.
  const auto log = lines_of(test::data_dir() + "/megatron_logs/mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt", 2, 18);
  ASSERT_EQ(log.size(), 17u);
  publish(topics::output(session, 1),
          wire::make_envelope(session, 1, wire::trial_output{1, 1, {log.begin(), log.begin() + 8}}));
  publish(topics::output(session, 1),
          wire::make_envelope(session, 1, wire::trial_output{1, 9, {log.begin() + 8, log.end()}}));
  std::this_thread::sleep_for(1500ms); // several scrapes at 0.2 s
  wire::trial_result result;
  result.trial = 1;
  result.status = trial_status::succeeded;
  publish(topics::trial_state(session, 1), wire::make_envelope(session, 1, result));

  // The log's four metrics and the six whole-GPU fields the A100 reports.
  const auto all = series_of(session, 10);
  ASSERT_EQ(all.size(), 10u);
  const auto* tflops = find_series(all, trial_metric::tflops_per_gpu, -1);
  ASSERT_TRUE(tflops);
  EXPECT_EQ(tflops->unit, "TFLOP/s");
  EXPECT_EQ(values_of(*tflops), (std::vector<double>{812.5, 872.5, 877.5, 879.9, 878.5, 877.3,
                                                     876.0, 875.3, 875.3, 875.0}));
  const auto* iteration = find_series(all, trial_metric::iteration_ms, -1);
  ASSERT_TRUE(iteration);
  EXPECT_EQ(values_of(*iteration).front(), 13035.3);
  EXPECT_EQ(values_of(*iteration).back(), 12104.3);
  const auto* loss = find_series(all, trial_metric::loss, -1); // iteration 10 printed none
  ASSERT_TRUE(loss);
  EXPECT_EQ(loss->points.size(), 9u);
  EXPECT_EQ(values_of(*loss).front(), 10.64275);
  EXPECT_EQ(values_of(*loss).back(), 5.847192);
  const auto* memory = find_series(all, trial_metric::max_reserved_mib, -1);
  ASSERT_TRUE(memory);
  EXPECT_EQ(values_of(*memory), (std::vector<double>{75682.0}));

  const auto* power = find_series(all, trial_metric::power_w, 0);
  ASSERT_TRUE(power);
  EXPECT_EQ(power->unit, "W");
  EXPECT_GE(power->points.size(), 2u);
  for (double v : values_of(*power))
    EXPECT_EQ(v, 409.692);
  for (size_t i = 1; i < power->points.size(); ++i)
    EXPECT_GE(power->points[i].t_ms, power->points[i - 1].t_ms);
  const auto* tensor = find_series(all, trial_metric::tensor_active, 0);
  ASSERT_TRUE(tensor);
  EXPECT_EQ(values_of(*tensor).front(), 0.929260);
  const auto* framebuffer = find_series(all, trial_metric::framebuffer_used_mib, 0);
  ASSERT_TRUE(framebuffer);
  EXPECT_EQ(values_of(*framebuffer).front(), 4845);
  EXPECT_EQ(framebuffer->unit, "MiB");
  EXPECT_FALSE(find_series(all, trial_metric::gpu_utilization_pct, 0)); // not under MIG
}

TEST_F(telemetry_agent_test, a_host_url_waits_for_the_jobs_nodes_and_scrapes_each) {
  test::local_http_server exporter(
    "metrics_server.py",
    {"--file", test::data_dir() + "/dcgm/nvidia_docs_a100_mig_under_load.prom"});
  const std::string session = "telemetry-hosts";
  wire::session_opened opened;
  opened.job_name = "telemetry";
  wire::pool_wire pool;
  pool.name = "a100";
  pool.kind = pool_kind::slurm;
  pool.gpus_per_node = 8;
  pool.dcgm = "http://{host}:" + std::to_string(exporter.port()) + "/metrics";
  pool.dcgm_period_s = 0.2;
  opened.pools = {pool};
  store(wire::make_envelope(session, 0, opened));
  publish(topics::trial_state(session, 1),
          wire::make_envelope(session, 1, wire::trial_started{1, {}, {}, "a100"}));
  std::this_thread::sleep_for(600ms); // queued: no node to scrape yet
  // Slurm runs the job on two nodes, both this machine under two names.
  wire::trial_job placed;
  placed.trial = 1;
  placed.slurm_job_id = 42;
  placed.hosts = {"127.0.0.1", "localhost"};
  publish(topics::trial_state(session, 1), wire::make_envelope(session, 1, placed));
  std::this_thread::sleep_for(1200ms);
  wire::trial_result result;
  result.trial = 1;
  result.status = trial_status::succeeded;
  publish(topics::trial_state(session, 1), wire::make_envelope(session, 1, result));

  // The recorded exporter reports GPU 0 (six whole-GPU fields): node 0's
  // GPU 0 is GPU 0, node 1's is GPU 8.
  const auto all = series_of(session, 12);
  std::set<int> gpus;
  for (const auto& s : all)
    if (s.metric == trial_metric::power_w) {
      gpus.insert(s.gpu);
      EXPECT_EQ(values_of(s).front(), 409.692) << s.gpu;
    }
  EXPECT_EQ(gpus, (std::set<int>{0, 8}));
}

TEST_F(telemetry_agent_test, a_pool_without_dcgm_gets_the_log_series_alone) {
  const std::string session = "telemetry-2";
  wire::session_opened opened;
  opened.pools = {wire::pool_wire{}}; // "simulated", no exporter
  store(wire::make_envelope(session, 0, opened));
  const auto log = lines_of(test::data_dir() + "/megatron_logs/mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt", 2, 9);
  // The output before trial_started, as the bus may deliver it.
  publish(topics::output(session, 3), wire::make_envelope(session, 3, wire::trial_output{3, 1, log}));
  publish(topics::trial_state(session, 3),
          wire::make_envelope(session, 3, wire::trial_started{3, {}, {}, ""}));
  wire::trial_result result;
  result.trial = 3;
  publish(topics::trial_state(session, 3), wire::make_envelope(session, 3, result));
  const auto all = series_of(session, 3);
  ASSERT_EQ(all.size(), 3u); // TFLOP/s, iteration time, loss: no memory line yet, no GPUs
  const auto* tflops = find_series(all, trial_metric::tflops_per_gpu, -1);
  ASSERT_TRUE(tflops);
  EXPECT_EQ(values_of(*tflops), (std::vector<double>{812.5, 872.5}));
  EXPECT_EQ(tflops->trial, 3);
}

// The dashboard's live line: a running trial's log series are stored
// every live_store_ms while output comes, with no result yet.
TEST_F(telemetry_agent_test, a_running_trials_log_series_are_stored_before_its_result) {
  const std::string session = "telemetry-live";
  wire::session_opened opened;
  opened.pools = {wire::pool_wire{}};
  store(wire::make_envelope(session, 0, opened));
  publish(topics::trial_state(session, 4),
          wire::make_envelope(session, 4, wire::trial_started{4, {}, {}, ""}));
  const auto log = lines_of(test::data_dir() + "/megatron_logs/mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt", 2, 9);
  publish(topics::output(session, 4), wire::make_envelope(session, 4, wire::trial_output{4, 1, log}));
  std::this_thread::sleep_for(std::chrono::milliseconds(telemetry_agent_state::live_store_ms + 300));
  // A line after the period: the series gathered so far are stored.
  publish(topics::output(session, 4),
          wire::make_envelope(session, 4, wire::trial_output{4, 9, {"still running"}}));
  const auto all = series_of(session, 3);
  ASSERT_EQ(all.size(), 3u);  // TFLOP/s, iteration time, loss
  const auto* tflops = find_series(all, trial_metric::tflops_per_gpu, -1);
  ASSERT_TRUE(tflops);
  EXPECT_EQ(values_of(*tflops), (std::vector<double>{812.5, 872.5}));
}

} // namespace
} // namespace paratune
