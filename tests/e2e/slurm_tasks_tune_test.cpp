// Trials started by srun inside the batch job, over a real Slurm
// (tools/slurm-local): one task per node with torchrun's rendezvous read on
// the node ({node_rank}, {master_addr}, {master_port}, {job_id}), and one
// task per GPU with torch's RANK, LOCAL_RANK and WORLD_SIZE. The launch goes
// through a small wrapper that prints what its task received and then runs
// paratune-sim on the last rank, as Megatron-LM logs from the last rank.
// Skipped when no local Slurm runs.

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "storage/message_pool.hpp"
#include "tests/e2e/local_slurm.hpp"
#include "tests/fixtures/local_http_server.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct slurm_tasks_tune : ::testing::Test {
  void SetUp() override {
    if (!test::use_local_slurm())
      GTEST_SKIP() << test::no_local_slurm;
    dir = test::make_temp_dir("slurm-tasks");
    wrapper = test::write_file(dir, "task.sh", R"(#!/bin/sh
# task.sh NODE_RANK MASTER_ADDR MASTER_PORT JOB_ID COMMAND...
echo "task node_rank=$1 master=$2:$3 job=$4 rank=${RANK:-none} local=${LOCAL_RANK:-none} world=${WORLD_SIZE:-none}"
shift 4
if [ -n "${RANK:-}" ] && [ "$RANK" -ne $((WORLD_SIZE - 1)) ]; then exit 0; fi
exec "$@"
)");
    fs::permissions(wrapper, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec
                                 | fs::perms::others_read | fs::perms::others_exec);
  }
  void TearDown() override {
    if (!dir.empty())
      fs::remove_all(dir);
  }

  /// `paratune tune --json` with one slurm pool whose `tasks:` is `tasks`,
  /// on `cluster` (a file beside the job, or a catalog name).
  nlohmann::json tune(const std::string& tasks, const std::string& cluster, int world) {
    const auto job = test::write_file(
        dir, "job.yaml",
        "name: llama3-0.5b-srun\nmodel: llama3-0.5b\ncluster: " + cluster + "\nnodes: 1\n"
        "precision: bf16\ntrials: 2\nstop: budget\nsimulation: {train_iters: 8}\n"
        "initial: {tp: 1, pp: 1, mbs: 1, gbs: 64, seq: 2048, recompute: none}\n"
        "pools:\n"
        "  - {name: a100, kind: slurm, partition: a100, tasks: " + tasks + ", time: \"00:10:00\",\n"
        "     launch: [\"" + wrapper + "\", \"{node_rank}\", \"{master_addr}\", \"{master_port}\",\n"
        "              \"{job_id}\", \"" + test::bin_dir() + "/paratune-sim\", --sim-cluster,\n"
        "              dgx-a100-80g, --sim-world-size, \"" + std::to_string(world) + "\",\n"
        "              --sim-time-scale, \"0.002\", --sim-failure-rate, \"0\", --sim-seed,\n"
        "              \"{trial}\", \"{megatron_args}\"]}\n");
    const auto r = test::run_program(
        {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  /// The "task ..." lines of every job output file of the run, with the
  /// job id the file is named after.
  std::vector<std::pair<std::string, std::string>> task_lines() const {
    std::vector<std::pair<std::string, std::string>> out;
    const std::regex name("slurm-([0-9]+)\\.out");
    for (const auto& e : fs::recursive_directory_iterator(dir + "/pool/trials")) {
      std::smatch m;
      const auto file = e.path().filename().string();
      if (!std::regex_match(file, m, name))
        continue;
      std::ifstream in(e.path());
      for (std::string line; std::getline(in, line);)
        if (line.rfind("task ", 0) == 0)
          out.emplace_back(m[1], line);
    }
    return out;
  }

  std::string dir, wrapper;
};

TEST_F(slurm_tasks_tune, one_task_per_node_gets_the_rendezvous_on_its_node) {
  const auto j = tune("per_node", "dgx-a100-80g", 8);
  ASSERT_EQ(j["trials"].size(), 2u) << j.dump();
  for (const auto& t : j["trials"])
    EXPECT_EQ(t["status"], "succeeded") << t.dump();
  const auto lines = task_lines();
  ASSERT_EQ(lines.size(), 2u); // one node, one task, two trials
  // node_rank 0 on the job's one node, the rendezvous on it, the job's own id.
  const std::regex task("task node_rank=0 master=([^:]+):([0-9]+) job=([0-9]+) rank=none "
                        "local=none world=none");
  for (const auto& [job_id, line] : lines) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, task)) << line;
    EXPECT_EQ(m[3], job_id);
    EXPECT_GT(std::stoi(m[2]), 0);
    EXPECT_FALSE(m[1].str().empty());
  }
}

TEST_F(slurm_tasks_tune, one_task_per_gpu_gets_torchs_ranks) {
  // Two GPUs a node, so that two tasks fit the local node's two CPUs.
  std::ifstream in(test::source_dir() + "/configs/clusters/dgx-a100-80g.yaml");
  std::stringstream text;
  text << in.rdbuf();
  auto cluster = std::regex_replace(text.str(), std::regex("devices_per_node: 8"),
                                    "devices_per_node: 2");
  cluster = std::regex_replace(cluster, std::regex("name: dgx-a100-80g"), "name: two-a100");
  test::write_file(dir, "two-a100.yaml", cluster);
  const auto j = tune("per_gpu", "two-a100.yaml", 2);
  ASSERT_EQ(j["trials"].size(), 2u) << j.dump();
  for (const auto& t : j["trials"])
    EXPECT_EQ(t["status"], "succeeded") << t.dump();
  std::map<std::string, std::set<std::string>> ranks_by_job;
  const std::regex task("task node_rank=0 master=[^:]+:[0-9]+ job=[0-9]+ rank=([01]) "
                        "local=([01]) world=2");
  for (const auto& [job_id, line] : task_lines()) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, task)) << line;
    EXPECT_EQ(m[1], m[2]); // one node: the rank is the local rank
    ranks_by_job[job_id].insert(m[1]);
  }
  ASSERT_EQ(ranks_by_job.size(), 2u);
  for (const auto& [job_id, ranks] : ranks_by_job)
    EXPECT_EQ(ranks, (std::set<std::string>{"0", "1"})) << job_id;
}

// A dcgm-exporter URL with {host} is scraped on the node Slurm ran the job
// on: the validator stores the job's hosts from Slurm's node list, and the
// telemetry agent scrapes http://NODE:PORT/metrics (a real HTTP server
// serving NVIDIA's recorded exporter output) while the trial runs.
TEST_F(slurm_tasks_tune, a_dcgm_url_with_host_is_scraped_on_the_jobs_node) {
  test::local_http_server exporter(
    "metrics_server.py",
    {"--file", test::data_dir() + "/dcgm/nvidia_docs_a100_mig_under_load.prom"});
  const auto job = test::write_file(
      dir, "job.yaml",
      "name: dcgm-per-node\nmodel: llama3-0.5b\ncluster: dgx-a100-80g\nnodes: 1\n"
      "precision: bf16\ntrials: 1\nstop: budget\nsimulation: {train_iters: 30}\n"
      "initial: {tp: 1, pp: 1, mbs: 1, gbs: 64, seq: 2048, recompute: none}\n"
      "pools:\n"
      "  - {name: a100, kind: slurm, partition: a100, time: \"00:10:00\",\n"
      "     dcgm: \"http://{host}:" + std::to_string(exporter.port()) + "/metrics\",\n"
      "     dcgm_period_s: 0.2,\n"
      "     launch: [\"" + test::bin_dir() + "/paratune-sim\", --sim-cluster, dgx-a100-80g,\n"
      "              --sim-world-size, \"8\", --sim-time-scale, \"0.05\",\n"
      "              --sim-failure-rate, \"0\", \"{megatron_args}\"]}\n");
  const auto r = test::run_program(
      {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["trials"].size(), 1u);
  EXPECT_EQ(j["trials"][0]["status"], "succeeded") << j.dump();

  auto pool = message_pool::open(dir + "/pool");
  ASSERT_TRUE(pool);
  auto history = (*pool)->session_history(j["session"].get<std::string>());
  ASSERT_TRUE(history);
  std::vector<std::string> hosts;
  std::set<int> gpus;
  for (const auto& e : *history) {
    if (e.type == wire::type_name<wire::trial_job>()) {
      const auto placed = wire::body_of<wire::trial_job>(e);
      if (!placed.hosts.empty()) {
        hosts = placed.hosts;
        EXPECT_GT(placed.slurm_job_id, 0);
      }
    }
    if (e.type == wire::type_name<wire::metric_series>()) {
      const auto series = wire::body_of<wire::metric_series>(e);
      if (series.metric == trial_metric::power_w)
        gpus.insert(series.gpu);
    }
  }
  // slurm-local's one node is this host, by its short name.
  ASSERT_EQ(hosts, std::vector<std::string>{test::local_slurm_node()});
  // The recorded exporter output holds GPU 0 of the one node.
  if (!test::resolves_to_loopback(hosts.front()))
    GTEST_SKIP() << hosts.front() << " does not resolve to 127.0.0.1, where the exporter listens";
  EXPECT_EQ(gpus, std::set<int>{0});
}

// docs/jobs.md's Slurm example's slurm-local twin, as written: run with the
// build on PATH, both pools take trials (one through srun per node), the
// initial configuration runs, and every trial measures.
TEST(slurm_local_example, runs_as_written) {
  if (!test::use_local_slurm())
    GTEST_SKIP() << test::no_local_slurm;
  // Its REST pool's jobs run as slurmrestd's user, who must reach the build.
  if (!test::others_can_run(test::bin_dir() + "/paratune-sim"))
    GTEST_SKIP() << "slurmrest cannot reach " << test::bin_dir()
                 << " (a checkout inside a folder others cannot search)";
  const auto dir = test::make_temp_dir("slurm-example");
  const char* path = std::getenv("PATH");
  const auto r = test::run_program(
    {"/usr/bin/env", "PATH=" + test::bin_dir() + ":" + (path ? path : "/usr/bin:/bin"),
     test::bin_dir() + "/paratune", "tune",
     test::source_dir() + "/configs/examples/llama3-8b-slurm-local.yaml", "--db", dir + "/pool",
     "--trials", "3", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["trials"].size(), 3u) << j.dump();
  std::set<std::string> pools;
  for (const auto& t : j["trials"]) {
    EXPECT_TRUE(t["status"] == "stopped" || t["status"] == "succeeded") << t.dump();
    EXPECT_GT(t["tflops_per_gpu"].get<double>(), 0) << t.dump();
    pools.insert(t["pool"].get<std::string>());
  }
  EXPECT_EQ(pools, (std::set<std::string>{"a100", "h100"}));
  EXPECT_EQ(j["trials"][0]["change"], "Run the initial configuration.");
  fs::remove_all(dir);
  // The slurmrestd pool's trial directories, under the example's workdir.
  fs::remove_all("/tmp/" + j["session"].get<std::string>());
}

} // namespace
} // namespace paratune
