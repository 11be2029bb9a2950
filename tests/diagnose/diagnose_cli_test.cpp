// `paratune diagnose` as a user runs it: the JSON it prints, and what it
// does with bad input (exit 2 with the reason, or a result marked partial;
// never a crash).

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/diagnose/diagnose_support.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

extern char** environ;

namespace paratune {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// Runs paratune with `args` (fork and exec, no shell).
test::program_result paratune(std::vector<std::string> args) {
  test::use_source_configs();  // the child inherits PARATUNE_CONFIGS
  args.insert(args.begin(), test::bin_dir() + "/paratune");
  return test::run_program(args);
}

/// tests/fixtures/xprof_server.py in a mode, killed on destruction.
struct xprof_server {
  xprof_server(const std::string& root, const std::string& mode) {
    int fds[2];
    if (pipe(fds) != 0)
      return;
    std::vector<std::string> args = {"python3", test::source_dir() + "/tests/fixtures/xprof_server.py",
                                     "--root", root, "--mode", mode, "--delay", "20"};
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    if (posix_spawnp(&pid, "python3", &fa, nullptr, argv.data(), environ) != 0)
      pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    std::string line;
    pollfd p{fds[0], POLLIN, 0};
    while (line.find('\n') == std::string::npos && poll(&p, 1, 20000) > 0) {
      char buf[64];
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0)
        break;
      line.append(buf, std::size_t(n));
    }
    close(fds[0]);
    port = std::atoi(line.c_str());
  }
  ~xprof_server() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  pid_t pid = -1;
  int port = 0;
};

struct diagnose_cli : ::testing::Test {
  void SetUp() override { dir = test::make_temp_dir("diagnose-cli"); }
  void TearDown() override { fs::remove_all(dir); }
  std::string exp(const std::string& scenario) {
    return test::asap_dir(scenario) + "/experiment.yaml";
  }
  std::string dir;
};

TEST_F(diagnose_cli, json_has_the_report_and_three_cited_proposals) {
  const auto s = test::asap_dir("v6e-16-hbm");
  auto r = paratune({"diagnose", "--experiment", exp("v6e-16-hbm"), "--xprof", s, "--json",
                     "--db", dir + "/pool"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["bottleneck"], "hbm_bandwidth");
  EXPECT_FALSE(j["partial"].get<bool>());
  EXPECT_FALSE(j["kpis"].empty());
  ASSERT_EQ(j["top_ops"].size(), 5u);
  EXPECT_EQ(j["top_ops"][0]["name"], "all-reduce.12");
  ASSERT_EQ(j["proposals"].size(), 3u);
  for (const auto& p : j["proposals"]) {
    EXPECT_TRUE(p.contains("mesh"));
    EXPECT_FALSE(p["rationale"].get<std::string>().empty());
    EXPECT_GT(p["predicted"]["step_time_ms"].get<double>(), 0);
    EXPECT_GT(p["confidence"].get<double>(), 0);
    EXPECT_FALSE(p["citations"].empty());
  }
  EXPECT_EQ(j["proposals"][0]["mesh"], "replica=1,data=4,seq=1,model=4");
  // The run is recorded in the pool and the knowledge index sits beside it.
  EXPECT_TRUE(fs::exists(dir + "/pool"));
  EXPECT_TRUE(fs::exists(dir + "/pool.knowledge"));
}

TEST_F(diagnose_cli, text_output_reads_as_a_report) {
  const auto s = test::asap_dir("v5p-512-compute");
  auto r = paratune({"diagnose", "-e", exp("v5p-512-compute"), "--xprof", s, "--db",
                     dir + "/pool"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("KPI health check"), std::string::npos);
  EXPECT_NE(r.out.find("Bottleneck: compute"), std::string::npos);
  EXPECT_NE(r.out.find("1. Increase data parallelism, reduce sequence (context) parallelism"),
            std::string::npos);
  EXPECT_NE(r.out.find("mesh: data=16,seq=4,model=8"), std::string::npos);
}

// No xprof and no tool JSON: the raw XSpace alone (openxla/xprof's TPU v6e
// capture, data/xprof/README.md) is read with libprotobuf and diagnosed.
TEST_F(diagnose_cli, a_folder_holding_only_an_xplane_gives_a_diagnosis_and_proposals) {
  const auto prof = dir + "/prof";
  fs::create_directories(prof);
  fs::copy_file(test::data_dir() + "/xprof/tpu_inference_2.xplane.pb", prof + "/host0.xplane.pb");
  auto r = paratune({"diagnose", "-e", exp("v6e-16-hbm"), "--xprof", prof, "--json", "--db",
                     dir + "/pool"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["partial"].get<bool>());
  EXPECT_NEAR(j["step_time_ms"].get<double>(), 784.127, 0.001);
  // copy-done reads host memory (S(5)): the device waits on the host link.
  EXPECT_EQ(j["bottleneck"], "input_host");
  EXPECT_EQ(j["secondary"], "unknown");
  EXPECT_NEAR(j["scores"]["input_host"].get<double>(), 0.8317, 1e-4);
  EXPECT_NEAR(j["time_by_class"]["host_transfer"].get<double>(), 0.9653, 1e-4);
  EXPECT_NE(j["summary"].get<std::string>().find(
                "4 of the top 5 operations are copies to or from host memory"),
            std::string::npos)
      << j["summary"];
  ASSERT_EQ(j["top_ops"].size(), 5u);
  EXPECT_EQ(j["top_ops"][0]["name"], "copy-done.2");
  EXPECT_EQ(j["top_ops"][0]["bound_by"], "Host");
  EXPECT_EQ(j["top_ops"][0]["resource"], "host_transfer");
  // Its bytes cross the host link, not the HBM's: no HBM utilisation, and
  // none counted in the program's (6.4% with the copies, 2.1% without).
  EXPECT_TRUE(j["top_ops"][0]["hbm_bw_utilization"].is_null());
  EXPECT_EQ(j["top_ops"][4]["name"], "broadcast_add_fusion.1");
  EXPECT_EQ(j["top_ops"][4]["bound_by"], "HBM");
  EXPECT_EQ(j["top_ops"][4]["resource"], "hbm_bandwidth");
  EXPECT_NEAR(j["top_ops"][4]["hbm_bw_utilization"].get<double>(), 0.7780, 1e-4);
  const auto& kpis = j["kpis"];
  const auto hbm = std::find_if(kpis.begin(), kpis.end(),
                                [](const auto& k) { return k["name"] == "hbm_bw_utilization"; });
  ASSERT_NE(hbm, kpis.end());
  EXPECT_NEAR((*hbm)["value"].get<double>(), 2.1494, 1e-4);
  // input_host proposals follow the model's step time and cite the input
  // pipeline first.
  ASSERT_EQ(j["proposals"].size(), 3u);
  EXPECT_EQ(j["proposals"][0]["mesh"], "replica=1,data=4,seq=1,model=4");
  EXPECT_EQ(j["proposals"][1]["mesh"], "replica=1,data=2,seq=4,model=2");
  EXPECT_EQ(j["proposals"][2]["mesh"], "replica=1,data=1,seq=4,model=4");
  for (const auto& p : j["proposals"]) {
    EXPECT_TRUE(p["rationale"].get<std::string>().starts_with(
        "The device waits for input or the host; a layout change helps only once that is fixed"))
        << p["rationale"];
    EXPECT_EQ(p["predicted"]["metric"], "step time (s)");
    ASSERT_FALSE(p["citations"].empty());
    EXPECT_EQ(p["citations"][0]["id"], "input-pipeline");
  }
}

// ASAP's experiment 3: predict and plan run the same model on the same mesh
// and name the same limit; diagnose names another and says why.
TEST_F(diagnose_cli, predict_and_plan_agree_and_diagnose_says_why_it_differs) {
  const auto e = exp("v5e-256-comm");
  auto predict = paratune({"predict", "-e", e, "--json"});
  auto plan = paratune({"plan", "-e", e, "--top", "4", "--json"});
  auto diagnose = paratune({"diagnose", "-e", e, "--xprof", test::asap_dir("v5e-256-comm"),
                            "--json", "--db", dir + "/pool"});
  ASSERT_EQ(predict.status, 0) << predict.err;
  ASSERT_EQ(plan.status, 0) << plan.err;
  ASSERT_EQ(diagnose.status, 0) << diagnose.err;
  const auto p = nlohmann::json::parse(predict.out);
  const auto current = nlohmann::json::parse(plan.out)["current"];
  EXPECT_EQ(p["limiting_factor"], "compute");
  EXPECT_EQ(current["limiting_factor"], "compute");
  EXPECT_EQ(current["mesh"], "replica=1,data=4,seq=16,model=4");
  EXPECT_NEAR(current["step_time_s"].get<double>(), p["step_time_s"].get<double>(), 1e-12);
  EXPECT_TRUE(current["rank"].is_null());  // not among plan's top four
  const auto d = nlohmann::json::parse(diagnose.out);
  EXPECT_EQ(d["bottleneck"], "communication");
  int explained = 0;
  for (const auto& n : d["notes"])
    explained += n.get<std::string>().starts_with(
        "the profile names communication and the mesh model (predict -e, plan) compute for this "
        "mesh");
  EXPECT_EQ(explained, 1);
}

TEST_F(diagnose_cli, bad_experiments_exit_2_with_the_reason) {
  const auto s = test::asap_dir("v5e-256-comm");
  // Each run names its own pool: two tests in one folder would share the
  // default ./paratune-pool, and one of them would find it locked.
  auto missing =
    paratune({"diagnose", "-e", dir + "/nope.yaml", "--xprof", s, "--db", dir + "/pool"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("nope.yaml"), std::string::npos);
  std::ofstream(dir + "/wrong.yaml")
      << "model: llama3-8b\nhardware: {cluster: tpu-v5e, slice: 16x16}\n"
         "mesh: {data: 4, model: 4}\nbatch: 8\nseq: 4096\n";
  auto wrong =
    paratune({"diagnose", "-e", dir + "/wrong.yaml", "--xprof", s, "--db", dir + "/pool"});
  EXPECT_EQ(wrong.status, 2);
  EXPECT_NE(wrong.err.find("spans 16 chips"), std::string::npos) << wrong.err;
  // A misspelled key anywhere is refused with its line and the nearest
  // known key, never read as the default it would leave.
  const std::pair<std::string, std::string> misspelled[] = {
    {"model: llama3-8b\nhardware: {cluster: tpu-v5e, slice: 16x16}\n"
     "mesh: {data: 16, model: 16}\nbatch: 8\nseq: 4096\nprecison: fp8\n",
     "misspelled.yaml:6: unknown key 'precison' (did you mean 'precision'?)"},
    {"model: llama3-8b\nhardware:\n  cluster: tpu-v5e\n  slice: 16x16\n  num_slice: 2\n"
     "mesh: {data: 16, model: 16}\nbatch: 8\nseq: 4096\n",
     "misspelled.yaml:5: hardware: unknown key 'num_slice' (did you mean 'num_slices'?)"},
    {"model: llama3-8b\nhardware: {cluster: tpu-v5e, slice: 16x16}\n"
     "mesh: {data: 16, model: 16}\nbatch: 8\nseq: 4096\nworkload:\n  remat_policy: full\n",
     "misspelled.yaml:7: workload: unknown key 'remat_policy' (known: accumulation_steps, "
     "remat, seq_shards_weights, optimizer_over_data, cp_load_balanced)"}};
  for (const auto& [text, message] : misspelled) {
    std::ofstream(dir + "/misspelled.yaml") << text;
    auto r = paratune(
      {"diagnose", "-e", dir + "/misspelled.yaml", "--xprof", s, "--db", dir + "/pool"});
    EXPECT_EQ(r.status, 2) << message;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  auto none = paratune({"diagnose", "-e", exp("v5e-256-comm"), "--db", dir + "/pool"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("no profile given"), std::string::npos);
}

TEST_F(diagnose_cli, a_truncated_tool_file_gives_a_partial_result) {
  const auto prof = dir + "/prof";
  fs::create_directories(prof);
  const auto s = test::asap_dir("v5e-256-comm");
  for (const char* t : {"overview_page.json", "roofline_model.json"})
    fs::copy_file(s + "/" + t, prof + "/" + t);
  const auto op = slurp(s + "/op_profile.json");
  std::ofstream(prof + "/op_profile.json") << op.substr(0, op.size() / 2);
  auto r = paratune({"diagnose", "-e", exp("v5e-256-comm"), "--xprof", prof, "--json", "--db",
                     dir + "/pool"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["partial"].get<bool>());
  EXPECT_EQ(j["proposals"].size(), 3u);
  // Everything damaged: nothing to diagnose.
  std::ofstream(prof + "/overview_page.json") << "[{\"cols\": [";
  std::ofstream(prof + "/roofline_model.json") << "\x1f\x8b garbage";
  auto all_bad =
    paratune({"diagnose", "-e", exp("v5e-256-comm"), "--xprof", prof, "--db", dir + "/pool"});
  EXPECT_EQ(all_bad.status, 2);
  EXPECT_NE(all_bad.err.find("error:"), std::string::npos);
}

TEST_F(diagnose_cli, broken_gzip_and_binary_junk_are_handled) {
  const auto gz = dir + "/trace.json.gz";
  const auto good = slurp(test::data_dir() + "/kineto/hta_sampled_rank-0_128ranks.json.gz");
  std::ofstream(gz, std::ios::binary) << good.substr(0, good.size() / 3);
  const auto gpu = test::source_dir() + "/tests/fixtures/corpus_experiments/kineto-128ranks.yaml";
  auto r = paratune({"diagnose", "-e", gpu, "--kineto", gz, "--json", "--db", dir + "/pool"});
  // A trace cut mid-stream is read up to the cut and marked partial, or
  // refused with the reason; never a crash.
  EXPECT_TRUE(r.status == 0 || r.status == 2) << r.status << r.err;
  if (r.status == 0)
    EXPECT_TRUE(nlohmann::json::parse(r.out)["partial"].get<bool>());
  else
    EXPECT_NE(r.err.find("trace.json.gz"), std::string::npos);
  // A Megatron log with binary junk between real lines still diagnoses.
  std::string log = slurp(test::data_dir()
                          + "/megatron_logs/bigscience_gpt2-meg_n4_dp1_tp4_pp4-1809579.txt");
  std::string junk;
  for (int i = 0; i < 4096; ++i)
    junk.push_back(char((i * 131 + 7) % 256));
  std::ofstream(dir + "/junk.log", std::ios::binary) << junk << log.substr(0, log.size() / 2)
                                                      << junk << log.substr(log.size() / 2);
  const auto big = test::source_dir() + "/tests/fixtures/corpus_experiments/megatron-bigscience.yaml";
  auto j = paratune({"diagnose", "-e", big, "--megatron-log", dir + "/junk.log", "--json", "--db",
                     dir + "/pool"});
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_EQ(nlohmann::json::parse(j.out)["bottleneck"], "communication");
}

TEST_F(diagnose_cli, a_server_that_is_down_or_slow_is_an_error_not_a_hang) {
  auto down = paratune({"diagnose", "-e", exp("v5e-256-comm"), "--xprof", "http://127.0.0.1:9",
                        "--timeout", "5", "--db", dir + "/pool"});
  EXPECT_EQ(down.status, 2);
  EXPECT_NE(down.err.find("127.0.0.1:9"), std::string::npos) << down.err;

  const auto root = dir + "/runs";
  fs::create_directories(root + "/run1");
  for (const char* t : {"overview_page.json", "op_profile.json", "roofline_model.json"})
    fs::copy_file(test::asap_dir("v5e-256-comm") + "/" + t, root + "/run1/" + t);
  xprof_server normal(root, "normal");
  ASSERT_GT(normal.port, 0);
  auto ok = paratune({"diagnose", "-e", exp("v5e-256-comm"), "--xprof",
                      "http://127.0.0.1:" + std::to_string(normal.port), "--json", "--db",
                      dir + "/pool"});
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(nlohmann::json::parse(ok.out)["bottleneck"], "communication");

  xprof_server slow(root, "slow");
  ASSERT_GT(slow.port, 0);
  const auto start = std::chrono::steady_clock::now();
  auto late = paratune({"diagnose", "-e", exp("v5e-256-comm"), "--xprof",
                        "http://127.0.0.1:" + std::to_string(slow.port), "--timeout", "1", "--db",
                        dir + "/pool"});
  EXPECT_EQ(late.status, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
}

} // namespace
} // namespace paratune
