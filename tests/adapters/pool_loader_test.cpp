// The job file's `pools:`: what a user writes for Slurm partitions, local
// processes and the simulator, and what is refused.

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "adapters/config/job_loader.hpp"
#include "adapters/config/pool_loader.hpp"
#include "core/launch/launch_template.hpp"
#include "core/megatron_args.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "tests/fixtures/run_program.hpp"
#include "core/input_error.hpp"

namespace paratune {
namespace {

std::vector<pool_spec> pools(const std::string& yaml) {
  return read_pools(YAML::Load(yaml), "job.yaml");
}

std::string pool_refusal(const std::string& yaml) {
  try {
    pools(yaml);
  } catch (const input_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(pool_loader, reads_the_three_kinds_as_the_issue_writes_them) {
  const auto p = pools(R"([
    {name: a100, kind: slurm, partition: a100, capacity: 2, via: sbatch,
     launch: [torchrun, --nproc-per-node, "{gpus_per_node}", pretrain_gpt.py, "{megatron_args}"]},
    {name: h100, kind: slurm, partition: h100, capacity: 2, via: slurmrestd,
     url: "unix:/run/slurmrestd.sock", launch: [run.sh, "{megatron_args}"]},
    {name: sim, kind: simulated, capacity: 4}])");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].kind, pool_kind::slurm);
  EXPECT_EQ(p[0].via, slurm_via::sbatch);
  EXPECT_EQ(p[0].capacity, 2);
  EXPECT_EQ(p[0].launch.size(), 5u);
  EXPECT_EQ(p[0].launch[2], "{gpus_per_node}");
  EXPECT_EQ(p[1].via, slurm_via::slurmrestd);
  EXPECT_EQ(p[1].url, "unix:/run/slurmrestd.sock");
  EXPECT_EQ(p[2].kind, pool_kind::simulated);
  EXPECT_EQ(p[2].capacity, 4);
  EXPECT_TRUE(p[2].launch.empty());
}

TEST(pool_loader, reads_a_dcgm_exporter_and_its_period) {
  const auto p = pools(R"([
    {name: h100, kind: simulated, dcgm: "http://node7:9400/metrics", dcgm_period_s: 2.5},
    {name: a100, kind: simulated, dcgm: "https://node8:9400/metrics"},
    {name: sim, kind: simulated}])");
  EXPECT_EQ(p[0].dcgm_url, "http://node7:9400/metrics");
  EXPECT_DOUBLE_EQ(p[0].dcgm_period_s, 2.5);
  EXPECT_EQ(p[1].dcgm_url, "https://node8:9400/metrics");
  EXPECT_DOUBLE_EQ(p[1].dcgm_period_s, 5);
  EXPECT_EQ(p[2].dcgm_url, "");
}

TEST(pool_loader, refuses_a_dcgm_url_that_is_not_http) {
  EXPECT_EQ(pool_refusal("[{name: x, kind: simulated, dcgm: \"file:///etc/passwd\"}]"),
            "job.yaml: pools[0]: field 'dcgm': expected http(s)://HOST:PORT/metrics (HOST may be "
            "{host}, each node of a Slurm job), got 'file:///etc/passwd'");
  EXPECT_EQ(pool_refusal("[{name: x, kind: simulated, dcgm: \"http://\"}]"),
            "job.yaml: pools[0]: field 'dcgm': expected http(s)://HOST:PORT/metrics (HOST may be "
            "{host}, each node of a Slurm job), got 'http://'");
  EXPECT_EQ(pool_refusal("[{name: x, kind: simulated, dcgm: \"http://a b:9400/metrics\"}]"),
            "job.yaml: pools[0]: field 'dcgm': expected http(s)://HOST:PORT/metrics (HOST may be "
            "{host}, each node of a Slurm job), got 'http://a b:9400/metrics'");
  EXPECT_EQ(pool_refusal("[{name: x, kind: simulated, dcgm: \"http://n:9400/metrics\", "
                    "dcgm_period_s: 0}]"),
            "job.yaml: pools[0]: line 1: field 'dcgm_period_s': 0 is outside the allowed range 0.1..3600");
  EXPECT_EQ(pool_refusal("[{name: x, kind: simulated, dcgm_period_s: 5}]"),
            "job.yaml: pools[0]: field 'dcgm_period_s' needs field 'dcgm' (the exporter's URL)");
}

TEST(pool_loader, a_slurm_pools_dcgm_url_may_name_each_node_of_the_job) {
  const auto p = pools(R"([
    {name: a, kind: slurm, partition: a100, gpus_per_node: 8, launch: [run],
     dcgm: "http://{host}:9400/metrics"}])");
  EXPECT_EQ(p[0].dcgm_url, "http://{host}:9400/metrics");
  EXPECT_EQ(pool_refusal("[{name: x, kind: local, launch: [run], gpus_per_node: 8, "
                         "dcgm: \"http://{host}:9400/metrics\"}]"),
            "job.yaml: pools[0]: field 'dcgm': {host} names the nodes of a Slurm job; a local "
            "pool has none: give the exporter's own host");
  EXPECT_EQ(pool_refusal("[{name: x, kind: slurm, partition: a, launch: [run], gpus_per_node: 8, "
                         "dcgm: \"file://{host}/metrics\"}]"),
            "job.yaml: pools[0]: field 'dcgm': expected http(s)://HOST:PORT/metrics (HOST may "
            "be {host}, each node of a Slurm job), got 'file://{host}/metrics'");
}

TEST(pool_loader, a_slurm_pool_may_relay_its_output) {
  const auto p = pools(R"([
    {name: a, kind: slurm, partition: a100, relay: true, launch: [run]},
    {name: b, kind: slurm, partition: a100, relay: true, relay_path: /opt/paratune-relay,
     relay_bind: "tcp://0.0.0.0:*", launch: [run]},
    {name: c, kind: slurm, partition: a100, launch: [run]}])");
  EXPECT_TRUE(p[0].relay);
  EXPECT_EQ(p[0].relay_path, "");
  EXPECT_EQ(p[1].relay_path, "/opt/paratune-relay");
  EXPECT_EQ(p[1].relay_bind, "tcp://0.0.0.0:*");
  EXPECT_FALSE(p[2].relay);
  EXPECT_EQ(pool_refusal("[{name: x, kind: local, relay: true, launch: [run]}]"),
            "job.yaml: pools[0]: field 'relay' is only for slurm pools");
  EXPECT_EQ(pool_refusal("[{name: x, kind: slurm, partition: p, relay_path: /r, launch: [run]}]"),
            "job.yaml: pools[0]: fields 'relay_path' and 'relay_bind' need 'relay: true'");
  EXPECT_EQ(pool_refusal("[{name: x, kind: slurm, partition: p, relay: true, relay_bind: \"ipc:///x\", "
                    "launch: [run]}]"),
            "job.yaml: pools[0]: field 'relay_bind': expected tcp://HOST:PORT (a port of * takes "
            "a free one), got 'ipc:///x'");
  EXPECT_EQ(pool_refusal("[{name: x, kind: slurm, partition: p, relay: maybe, launch: [run]}]"),
            "job.yaml: pools[0]: line 1: field 'relay': expected true or false, got 'maybe'");
}

TEST(pool_loader, refuses_each_mistake_naming_the_pool_and_field) {
  EXPECT_EQ(pool_refusal("[{name: x, kind: cloud}]"),
            "job.yaml: pools[0]: field 'kind': expected simulated, local, slurm or replay, got 'cloud'");
  EXPECT_EQ(pool_refusal("[{name: x, kind: simulated, capacity: 0}]"),
            "job.yaml: pools[0]: line 1: field 'capacity': 0 is outside the allowed range 1..1024");
  EXPECT_EQ(pool_refusal("[{name: x, kind: local}]"),
            "job.yaml: pools[0]: a local pool needs field 'launch' (the training command)");
  EXPECT_EQ(pool_refusal("[{name: x, kind: local, launch: [run, \"{model}\"]}]"),
            "job.yaml: pools[0]: launch token 2 '{model}': unknown placeholder {model} (known: "
            "{framework_args}, {megatron_args}, {maxtext_args}, {trial}, {session}, {nodes}, {gpus_per_node}, "
            "{workdir}, {relay}, {node_rank}, {master_addr}, {master_port}, {job_id})");
  EXPECT_EQ(pool_refusal("[{name: x, kind: slurm, launch: [run]}]"),
            "job.yaml: pools[0]: missing field 'partition'");
  EXPECT_EQ(pool_refusal("[{name: x, kind: slurm, partition: \"a100; rm -rf ~\", launch: [run]}]"),
            "job.yaml: pools[0]: field 'partition': 'a100; rm -rf ~' is not a partition name "
            "(letters, digits, '_', '-', '.')");
  EXPECT_EQ(pool_refusal("[{name: x, kind: slurm, partition: p, via: ssh, launch: [run]}]"),
            "job.yaml: pools[0]: field 'via': expected sbatch or slurmrestd, got 'ssh'");
  EXPECT_EQ(pool_refusal("[{name: x, kind: slurm, partition: p, via: slurmrestd, "
                    "url: \"http://10.0.0.1:6820\", launch: [run]}]"),
            "job.yaml: pools[0]: slurmrestd over TCP needs a JWT: give token_env or token_file");
  EXPECT_EQ(pool_refusal("[{name: x, kind: slurm, partition: p, via: slurmrestd, url: \"ftp://h\", "
                    "launch: [run]}]"),
            "job.yaml: pools[0]: field 'url': expected unix:/PATH or http(s)://HOST:PORT, got "
            "'ftp://h'");
  EXPECT_EQ(pool_refusal("[{name: x, kind: local, partition: p, launch: [run]}]"),
            "job.yaml: pools[0]: field 'partition' is only for slurm pools");
  EXPECT_EQ(pool_refusal("[{name: x, kind: simulated}, {name: x, kind: simulated}]"),
            "job.yaml: pools[1]: field 'name': 'x' names two pools");
  EXPECT_EQ(pool_refusal("[{name: \"a b\", kind: simulated}]"),
            "job.yaml: pools[0]: field 'name': 'a b' must be 1 to 64 letters, digits, '_', '-' "
            "or '.'");
  EXPECT_EQ(pool_refusal("[{name: x, kind: simulated, capcity: 2}]"),
            "job.yaml:1: pools[0]: unknown key 'capcity' (did you mean 'capacity'?)");
  EXPECT_EQ(pool_refusal("[{name: x, kind: simulated},\n {name: y, kind: simulated,\n"
                         "  gpus: 8}]"),
            "job.yaml:3: pools[1]: unknown key 'gpus' (known: name, kind, capacity, launch, "
            "partition, via, url, token_env, token_file, user, gpus_per_node, dcgm, dcgm_period_s, "
            "relay, relay_path, relay_bind, table, env, tasks, account, qos, constraint, gres, "
            "exclusive, time, workdir)");
  EXPECT_EQ(pool_refusal("[]"), "job.yaml: pools: expected a non-empty list of pools");
}

TEST(pool_loader, a_slurm_pool_says_how_its_tasks_start_and_what_it_asks_of_the_scheduler) {
  const auto p = pools(R"([
    {name: h100, kind: slurm, partition: batch, tasks: per_node, account: llm-perf,
     qos: high, constraint: "h100&ib", gres: "gpu:h100:8", exclusive: true, time: "1-02:00",
     launch: [torchrun, --nnodes, "{nodes}", --node-rank, "{node_rank}",
              "--rdzv-endpoint={master_addr}:{master_port}", pretrain_gpt.py,
              "{megatron_args}"]}])");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].tasks, slurm_tasks::per_node);
  EXPECT_EQ(p[0].account, "llm-perf");
  EXPECT_EQ(p[0].qos, "high");
  EXPECT_EQ(p[0].constraint, "h100&ib");
  EXPECT_EQ(p[0].gres, "gpu:h100:8");
  EXPECT_TRUE(p[0].exclusive);
  EXPECT_EQ(p[0].time_limit_minutes, 26 * 60);
  const auto plain = pools("[{name: a, kind: slurm, partition: p, launch: [run]}]");
  EXPECT_EQ(plain[0].tasks, slurm_tasks::one);
  EXPECT_FALSE(plain[0].exclusive);
  EXPECT_EQ(plain[0].time_limit_minutes, 0);
}

TEST(pool_loader, refuses_scheduler_options_slurm_would_not_take_naming_the_field) {
  const std::string slurm = "[{name: x, kind: slurm, partition: p, launch: [run], ";
  EXPECT_EQ(pool_refusal(slurm + "tasks: per_rack}]"),
            "job.yaml: pools[0]: field 'tasks': expected one, per_node or per_gpu, got 'per_rack'");
  EXPECT_EQ(pool_refusal(slurm + "account: \"a b\"}]"),
            "job.yaml: pools[0]: field 'account': 'a b' is not a Slurm account name (1 to 256 "
            "letters, digits, '_', '-', '.')");
  EXPECT_EQ(pool_refusal(slurm + "constraint: \"h100;reboot\"}]"),
            "job.yaml: pools[0]: field 'constraint': 'h100;reboot' is not a node feature "
            "expression (feature names joined by & | , with [ ] * : ( ), e.g. h100&ib)");
  EXPECT_EQ(pool_refusal(slurm + "gres: \"gpu 8\"}]"),
            "job.yaml: pools[0]: field 'gres': 'gpu 8' is not a generic resource list "
            "(name[:type][:count], commas between, e.g. gpu:8 or gpu:h100:8)");
  EXPECT_EQ(pool_refusal(slurm + "time: 2h}]"),
            "job.yaml: pools[0]: field 'time': '2h' is not a Slurm time limit (MM, HH:MM:SS, "
            "D-HH or D-HH:MM:SS, up to 366 days)");
  EXPECT_EQ(pool_refusal("[{name: x, kind: local, tasks: per_node, launch: [run]}]"),
            "job.yaml: pools[0]: field 'tasks' is only for slurm pools");
  EXPECT_EQ(pool_refusal("[{name: x, kind: local, launch: [torchrun, \"--node-rank={node_rank}\"]}]"),
            "job.yaml: pools[0]: field 'launch': {node_rank} is known only inside a Slurm job (a "
            "slurm pool's batch script reads it on each node)");
}

TEST(pool_loader, a_pool_and_the_job_name_their_trials_environment) {
  const auto p = pools("[{name: box, kind: local, launch: [run], "
                       "env: {NCCL_IB_HCA: mlx5_0, LD_LIBRARY_PATH: /opt/cuda/lib64}}]");
  EXPECT_EQ(p.at(0).env, (std::map<std::string, std::string>{
                           {"LD_LIBRARY_PATH", "/opt/cuda/lib64"}, {"NCCL_IB_HCA", "mlx5_0"}}));
  EXPECT_EQ(pool_refusal("[{name: box, kind: local, launch: [run], env: {NCCL-DEBUG: INFO}}]"),
            "job.yaml: pools[0]: field 'env': 'NCCL-DEBUG' is not an environment variable name "
            "([A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(pool_refusal("[{name: box, kind: local, launch: [run], env: [A=1]}]"),
            "job.yaml: pools[0]: field 'env': expected a mapping of NAME: value, e.g. "
            "{NCCL_DEBUG: WARN}");
  EXPECT_EQ(pool_refusal("[{name: box, kind: local, launch: [run], env: {A: [1, 2]}}]"),
            "job.yaml: pools[0]: field 'env': the value of 'A' must be a single value");
}

std::string job_env_refusal(const std::string& extra) {
  try {
    load_job_text("name: env\nmodel: llama3-8b\ncluster: dgx-a100-80g\n"
                  "initial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192}\n" + extra,
                  "job.yaml");
  } catch (const input_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(pool_loader, a_job_env_naming_a_secret_or_a_bad_name_is_refused) {
  EXPECT_EQ(job_env_refusal("env: {HF_HOME: /scratch/hf}\nsecret_env: [HF_TOKEN]\n"), "accepted");
  const std::string secret =
    " is a secret (SLURM_JWT, a reasoner's api_key_env, a pool's token_env or secret_env) and "
    "is never passed to a trial";
  EXPECT_EQ(job_env_refusal("env: {SLURM_JWT: x}\n"), "job.yaml: field 'env': SLURM_JWT" + secret);
  EXPECT_EQ(job_env_refusal("env: {HF_TOKEN: x}\nsecret_env: [HF_TOKEN]\n"),
            "job.yaml: field 'env': HF_TOKEN" + secret);
  EXPECT_EQ(job_env_refusal("reasoner: {mode: llm, base_url: \"http://127.0.0.1:1/v1\", model: m, "
                            "api_key_env: MY_LLM_KEY}\n"
                            "pools:\n  - {name: box, kind: local, launch: [run], "
                            "env: {MY_LLM_KEY: x}}\n"),
            "job.yaml: pool 'box': field 'env': MY_LLM_KEY" + secret);
  EXPECT_EQ(job_env_refusal("env: {\"A B\": x}\n"),
            "job.yaml: field 'env': 'A B' is not an environment variable name "
            "([A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(job_env_refusal("secret_env: [HF-TOKEN]\n"),
            "job.yaml: field 'secret_env': 'HF-TOKEN' is not an environment variable name "
            "([A-Za-z_][A-Za-z0-9_]*)");
}

// docs/jobs.md's own-cluster example loads, and its h100 pool renders a
// torchrun command carrying the trial's Megatron-LM arguments.
TEST(pool_loader, the_readme_torchrun_example_renders_a_megatron_command) {
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  // Its slurmrestd pool's workdir is the cluster's shared file system, which
  // this machine lacks: refused as such, and loaded with one that exists.
  const auto file = test::source_dir() + "/configs/examples/llama3-8b-slurm-torchrun.yaml";
  try {
    load_job(file);
    ADD_FAILURE() << "a workdir that does not exist was accepted";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(
                "pools[1]: field 'workdir': directory '/shared/alice/paratune' does not exist"),
              std::string::npos) << e.what();
  }
  const auto dir = test::make_temp_dir("torchrun-example");
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto workdir_at = text.find("workdir: /shared/alice/paratune");
  ASSERT_NE(workdir_at, std::string::npos);
  text.replace(workdir_at, 31, "workdir: " + dir);
  const auto job = load_job(test::write_file(dir, "job.yaml", text));
  std::filesystem::remove_all(dir);
  ASSERT_EQ(job.pools.size(), 2u);
  EXPECT_EQ(job.pools[1].workdir, dir);
  const auto& h100 = job.pools[0];
  EXPECT_EQ(h100.capacity, 2);
  EXPECT_EQ(h100.partition, "gpu-h100");
  EXPECT_EQ(job.pools[1].via, slurm_via::slurmrestd);
  EXPECT_EQ(job.pools[1].token_env, "SLURM_JWT");
  megatron_launch l;
  l.model = job.model;
  l.config = job.initial;
  l.prec = job.prec;
  l.train_iters = job.train_iters;
  launch_values v;
  v.framework_args = render_megatron_args(l);
  v.gpus_per_node = h100.gpus_per_node;
  v.trial = 1;
  const auto argv = launch_template::parse(h100.launch).render(v);
  ASSERT_GT(argv.size(), 20u);
  EXPECT_EQ(argv[0], "/opt/conda/bin/torchrun");
  EXPECT_EQ(argv[3], "8");
  EXPECT_EQ(argv[4], "/shared/Megatron-LM/pretrain_gpt.py");
  const auto at = [&](const std::string& flag) {
    const auto it = std::find(argv.begin(), argv.end(), flag);
    return it == argv.end() || it + 1 == argv.end() ? std::string("absent") : *(it + 1);
  };
  EXPECT_EQ(at("--tensor-model-parallel-size"), "2");
  EXPECT_EQ(at("--micro-batch-size"), "1");
  EXPECT_EQ(at("--global-batch-size"), "256");
  EXPECT_EQ(at("--train-iters"), "30");
  EXPECT_EQ(at("--tokenizer-type"), "NullTokenizer");
  EXPECT_EQ(argv.back(), "transformer_engine");
}

// workdir: a directory on the shared file system for the trial directories,
// checked when the job loads, not when the first job cannot write there.
TEST(pool_loader, reads_a_workdir_and_refuses_one_that_is_relative_missing_or_a_file) {
  const auto dir = test::make_temp_dir("pool-workdir");
  const auto p = pools("[{name: a, kind: slurm, partition: a100, workdir: \"" + dir
                       + "/\", launch: [run]}, {name: b, kind: local, workdir: \"" + dir
                       + "\", launch: [run]}]");
  EXPECT_EQ(p[0].workdir, dir);
  EXPECT_EQ(p[1].workdir, dir);
  EXPECT_EQ(pool_refusal("[{name: a, kind: slurm, partition: a100, workdir: scratch/trials, "
                         "launch: [run]}]"),
            "job.yaml: pools[0]: field 'workdir': 'scratch/trials' is not an absolute path "
            "(give the directory on the file system the compute nodes share, e.g. "
            "/shared/$USER/paratune)");
  EXPECT_EQ(pool_refusal("[{name: a, kind: slurm, partition: a100, workdir: \"" + dir
                         + "/gone\", launch: [run]}]"),
            "job.yaml: pools[0]: field 'workdir': directory '" + dir + "/gone' does not exist");
  test::write_file(dir, "file", "x");
  EXPECT_EQ(pool_refusal("[{name: a, kind: slurm, partition: a100, workdir: \"" + dir
                         + "/file\", launch: [run]}]"),
            "job.yaml: pools[0]: field 'workdir': '" + dir + "/file' is not a directory");
  EXPECT_EQ(pool_refusal("[{name: a, kind: simulated, workdir: /tmp}]"),
            "job.yaml: pools[0]: field 'workdir' is only for local and slurm pools");
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace paratune
