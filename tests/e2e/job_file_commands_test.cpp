// `predict --job` and `plan --job` read the job file tune reads and agree
// with tune's own first analysis of it (issue 45, part 5): the same model,
// cluster, sequence, batch, precision and search space, the same
// predictions, and the same memory screen. Tune runs on a simulated pool.

#include <cmath>
#include <filesystem>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct job_file_commands : ::testing::Test {
  void SetUp() override {
    dir = test::make_temp_dir("job-file-commands");
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  }
  void TearDown() override { fs::remove_all(dir); }

  test::program_result paratune(std::vector<std::string> args) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    return test::run_program(args);
  }

  nlohmann::json json_of(std::vector<std::string> args) {
    const auto r = paratune(std::move(args));
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }

  std::string dir;
  const std::string job = test::source_dir() + "/configs/examples/llama3-8b-a100x8.yaml";
};

// "expected 239.6 TFLOP/s/GPU (+-6.0%), peak 74407 MiB" of each candidate
// line of tune's analysis, in rank order.
std::vector<std::pair<double, double>> candidates_of(const std::string& reasoning) {
  std::vector<std::pair<double, double>> out;
  const std::regex line(R"(Candidate \d+: [^\n]*; expected ([0-9.]+) TFLOP/s/GPU \(\+-[0-9.]+%\), peak ([0-9]+) MiB)");
  for (std::sregex_iterator it(reasoning.begin(), reasoning.end(), line), end; it != end; ++it)
    out.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
  return out;
}

TEST_F(job_file_commands, predict_and_plan_agree_with_tunes_first_trial) {
  const auto tuned = json_of({"tune", job, "--db", dir + "/pool", "--trials", "1", "--json"});
  const auto report = json_of({"report", tuned.at("session").get<std::string>(), "--db",
                               dir + "/pool", "--format", "json"});
  const auto& first = report.at("decisions").at(0);
  ASSERT_EQ(first.at("change"), "Run the initial configuration.");
  const double tune_tflops = first.at("predicted_tflops").get<double>();
  EXPECT_NEAR(tune_tflops, 123.81, 0.01);
  const auto candidates = candidates_of(first.at("reasoning").get<std::string>());
  ASSERT_EQ(candidates.size(), 5u) << first.at("reasoning");
  EXPECT_EQ(candidates[0], std::make_pair(123.8, 23199.0));

  // predict --job: the initial configuration, fp16, on the job's 8 devices.
  const auto p = json_of({"predict", "--job", job, "--json"});
  EXPECT_EQ(p.at("job"), "llama3-8b-a100x8");
  EXPECT_EQ(p.at("precision"), "fp16");
  EXPECT_EQ(p.at("gpus"), 8);
  EXPECT_EQ(p.at("config").at("seq"), 8192);
  EXPECT_EQ(p.at("config").at("gbs"), 512);
  EXPECT_EQ(p.at("config").at("tp"), 8);
  EXPECT_EQ(p.at("config").at("recompute"), "full");
  EXPECT_NEAR(p.at("tflops_per_gpu").get<double>(), tune_tflops, 1e-9);
  EXPECT_EQ(std::round(p.at("peak_memory_mib").get<double>()), 23199);
  EXPECT_TRUE(p.at("memory_screen").is_null());
  EXPECT_TRUE(p.at("outside_search_space").is_null());

  // plan --job: the job's sequence and batch (8192 and 512, not plan's
  // 2048 default), its trial 1 as tune predicts it, and the layouts tune's
  // first analysis ranks after it, in the same order at the same figures
  // (its fifth candidate is another variant of plan's second layout, which
  // plan folds into one row).
  const auto plan = json_of({"plan", "--job", job, "--top", "3", "--json"});
  EXPECT_EQ(plan.at("seq"), 8192);
  EXPECT_EQ(plan.at("gbs"), 512);
  EXPECT_EQ(plan.at("precision"), "fp16");
  EXPECT_EQ(plan.at("candidates"), 98304);
  EXPECT_NEAR(plan.at("initial").at("tflops_per_gpu").get<double>(), tune_tflops, 1e-9);
  EXPECT_EQ(std::round(plan.at("initial").at("peak_memory_mib").get<double>()), 23199);
  ASSERT_EQ(plan.at("top").size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const auto& row = plan.at("top").at(i);
    EXPECT_NEAR(row.at("tflops_per_gpu").get<double>(), candidates[i + 1].first, 0.05) << i;
    EXPECT_NEAR(row.at("peak_memory_mib").get<double>(), candidates[i + 1].second, 0.5) << i;
    EXPECT_LE(row.at("peak_memory_mib").get<double>(), 81920) << i;
    EXPECT_NE(row.at("memory_verdict"), "does not fit") << i;
  }
  EXPECT_EQ(plan.at("top").at(0).at("layout"), "tp=2 pp=1 dp=4 cp=1 ep=1 mbs=2");
  EXPECT_NEAR(plan.at("top").at(0).at("tflops_per_gpu").get<double>(), 239.6, 0.05);

  const auto text = paratune({"plan", "--job", job, "--top", "3"});
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* line :
       {"plan: llama3-8b on 8 x A100-SXM4-80GB (dgx-a100-80g), fp16, seq 8192, gbs 512, the "
        "search space of job llama3-8b-a100x8\n",
        "trial 1 of job llama3-8b-a100x8 runs its initial configuration: predicted 123.8 "
        "TFLOP/s/GPU, MFU 39.7%, 2137 tokens/s/GPU, peak 23199 MiB (fits)\n"})
    EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
}

// The layout plan once called "tight" at 89,722 MiB on the 81,920 MiB A100
// while tune would not run it: both now refuse it by tune's memory screen.
TEST_F(job_file_commands, a_layout_over_the_device_does_not_fit_in_plan_or_predict) {
  const std::string over = "tp=1,recompute=none,dist_opt=true,overlap_grad=true,"
                           "overlap_param=true,fused_ce=true";
  const auto p = json_of({"predict", "--job", job, "--config", over, "--json"});
  EXPECT_EQ(std::round(p.at("peak_memory_mib").get<double>()), 89722);
  EXPECT_EQ(p.at("memory_screen"), "memory screen: predicted peak 89722 MiB is over the 81920 "
                                   "MiB of the device (94% risk of running out of memory)");
  const auto text = paratune({"predict", "--job", job, "--config", over});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("job llama3-8b-a100x8: tune's memory screen: predicted peak 89722 MiB "
                          "is over the 81920 MiB of the device (94% risk of running out of "
                          "memory): tune would not run it\n"),
            std::string::npos)
    << text.out;

  const auto plan = json_of({"plan", "--job", job, "--space",
                             "tp=1,pp=1,mbs=1,recompute=none,recompute_layers=0,sp=false,"
                             "dist_opt=true,overlap_grad=true,overlap_param=true,fused_ce=true,"
                             "first_pp_layers=0,last_pp_layers=0",
                             "--json"});
  EXPECT_EQ(plan.at("candidates"), 1);
  EXPECT_EQ(plan.at("rejected_by_memory"), 1);
  EXPECT_EQ(plan.at("fitting"), 0);
  EXPECT_TRUE(plan.at("top").empty());

  // Without a job, predict says the same of the same configuration.
  const auto bare = json_of({"predict", "--model", "llama3-8b", "--cluster", "dgx-a100-80g",
                             "--gpus", "8", "--precision", "fp16", "--config",
                             over + ",gbs=512,seq=8192", "--json"});
  EXPECT_EQ(bare.at("memory_screen"), p.at("memory_screen"));
  // A job starting there: the dry run says trial 1 is skipped, as tune skips it.
  const auto starts_over = test::write_file(
    dir, "over.yaml",
    "name: over\nmodel: llama3-8b\ncluster: dgx-a100-80g\nprecision: fp16\n"
    "initial: {tp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: none, dist_opt: true, "
    "overlap_grad: true, overlap_param: true, fused_ce: true}\n");
  const auto dry = paratune({"tune", starts_over, "--db", dir + "/pool", "--dry-run"});
  ASSERT_EQ(dry.status, 0) << dry.err;
  EXPECT_NE(dry.out.find("peak 89722 MiB (tune's memory screen: predicted peak 89722 MiB is over "
                         "the 81920 MiB of the device (94% risk of running out of memory): "
                         "skipped, no budget spent)\n"),
            std::string::npos)
    << dry.out;
  EXPECT_FALSE(fs::exists(dir + "/pool"));
  // Outside the job's search space: said so, as tune would refuse it.
  const auto outside = json_of({"predict", "--job", job, "--config", "tp=4,pp=2,vpp=2", "--json"});
  EXPECT_EQ(outside.at("outside_search_space"), "vpp=2");
}

TEST_F(job_file_commands, flags_override_the_job_where_they_make_sense) {
  // --precision, --seq and --gbs replace the job's; --model, --cluster and
  // --gpus would contradict it and are refused.
  const auto p = json_of({"predict", "--job", job, "--precision", "bf16", "--config",
                          "seq=4096", "--json"});
  EXPECT_EQ(p.at("precision"), "bf16");
  EXPECT_EQ(p.at("config").at("seq"), 4096);
  EXPECT_EQ(p.at("config").at("tp"), 8);  // the job's initial, where --config is silent
  const auto plan = json_of({"plan", "--job", job, "--seq", "4096", "--gbs", "256", "--top",
                             "1", "--json"});
  EXPECT_EQ(plan.at("seq"), 4096);
  EXPECT_EQ(plan.at("gbs"), 256);
  for (const char* command : {"predict", "plan"}) {
    const auto r = paratune({command, "--job", job, "--gpus", "16"});
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_NE(r.err.find("--job names the model, hardware and layout: give it without --model, "
                         "--cluster and --gpus"),
              std::string::npos)
      << r.err;
  }
  const auto both = paratune({"predict", "--job", job, "--experiment", job});
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("--job and --experiment each name the model and hardware: give one"),
            std::string::npos)
    << both.err;
  // A bad job file is refused as tune refuses it, naming the file and line.
  const auto bad = test::write_file(dir, "bad.yaml",
                                    "model: llama3-8b\ncluster: dgx-a100-80g\ntrails: 3\n"
                                    "initial: {gbs: 512, seq: 8192}\n");
  const auto refused = paratune({"plan", "--job", bad});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("bad.yaml:3: unknown key 'trails' (did you mean 'trials'?)"),
            std::string::npos)
    << refused.err;
}

} // namespace
} // namespace paratune
