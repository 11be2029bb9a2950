// One MFU everywhere (issue 27, part 3): one configuration of Llama3-8B on
// eight A100s through `paratune predict`, `paratune tune` on the simulated
// cluster, `paratune report --format json` and the dashboard's JSON. Each
// shows MFU = its TFLOP/s per GPU / 312 (the A100's dense bf16 peak);
// `tune`, `report` and the dashboard show the very same measured number, and
// `predict` is within the simulated cluster's distance from the model.

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "core/model_flops_utilization.hpp"
#include "dashboard/dashboard_server.hpp"
#include "messages/ec.hpp"
#include "storage/message_pool.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

constexpr double a100_bf16_peak = 312;
const std::string config = "tp=2,pp=1,mbs=1,gbs=512,seq=8192,sp=true,recompute=none,"
                           "dist_opt=true,overlap_grad=true,overlap_param=true";

test::program_result paratune(std::vector<std::string> args) {
  args.insert(args.begin(), test::bin_dir() + "/paratune");
  return test::run_program(args);
}

double mfu_of(const nlohmann::json& j) { return j.at("mfu").get<double>(); }
double tflops_of(const nlohmann::json& j) { return j.at("tflops_per_gpu").get<double>(); }

TEST(one_mfu, predict_tune_report_and_the_dashboard_give_one_mfu_for_one_configuration) {
  const auto dir = test::make_temp_dir("one-mfu");
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);

  // predict: the model's TFLOP/s per GPU and its MFU, in JSON and in text.
  const std::vector<std::string> predict_args = {"predict", "--model", "llama3-8b", "--cluster",
                                                 "dgx-a100-80g", "--gpus", "8", "--precision",
                                                 "bf16", "--config", config};
  auto json_args = predict_args;
  json_args.push_back("--json");
  const auto predicted = paratune(json_args);
  ASSERT_EQ(predicted.status, 0) << predicted.err;
  const auto p = nlohmann::json::parse(predicted.out);
  EXPECT_NEAR(mfu_of(p), tflops_of(p) / a100_bf16_peak, 1e-12);
  EXPECT_DOUBLE_EQ(p["mfu_peak_tflops"].get<double>(), a100_bf16_peak);
  // Hardware FLOPs are the model's plus recomputation: none here, so equal.
  EXPECT_DOUBLE_EQ(p["hardware_tflops_per_gpu"].get<double>(), tflops_of(p));
  EXPECT_NEAR(mfu_of(p), 0.758, 0.001); // 236.5 / 312
  const auto predicted_text = paratune(predict_args);
  ASSERT_EQ(predicted_text.status, 0) << predicted_text.err;
  std::smatch line;
  ASSERT_TRUE(std::regex_search(predicted_text.out, line, std::regex("\n  MFU +(\\S+) ")))
    << predicted_text.out;
  EXPECT_EQ(line[1], mfu_text(mfu_of(p))) << predicted_text.out;

  // tune: the same configuration as the job's first trial, on the simulated cluster.
  const auto job = test::write_file(
    dir, "job.yaml",
    "name: one-mfu\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\nprecision: bf16\n"
    "initial: {tp: 2, pp: 1, mbs: 1, gbs: 512, seq: 8192, sp: true, recompute: none, "
    "dist_opt: true, overlap_grad: true, overlap_param: true}\n"
    "trials: 1\nsimulation: {seed: 7, train_iters: 12}\n");
  const auto tuned = paratune({"tune", job, "--db", dir + "/pool"});
  ASSERT_EQ(tuned.status, 0) << tuned.err << tuned.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(tuned.out, m, std::regex("\nsession (\\S+) \\w+ after ")))
    << tuned.out;
  const std::string session = m[1];

  // report --format json: the trial as the pool holds it.
  const auto reported = paratune({"report", session, "--db", dir + "/pool", "--format", "json"});
  ASSERT_EQ(reported.status, 0) << reported.err;
  const auto report = nlohmann::json::parse(reported.out);
  ASSERT_FALSE(report["trials"].empty()) << report.dump();
  const auto& trial = report["trials"][0];
  ASSERT_EQ(trial["status"], "succeeded") << trial.dump();
  const double measured = mfu_of(trial);
  EXPECT_NEAR(measured, tflops_of(trial) / a100_bf16_peak, 1e-12);
  EXPECT_DOUBLE_EQ(mfu_of(report["best"]), measured);
  // The measured MFU (seed 7), and the model within 2 points of it: the
  // simulated cluster's hidden truth is a perturbed copy of the model.
  EXPECT_NEAR(measured, 0.750, 0.001); // 234.1 / 312
  EXPECT_NEAR(mfu_of(p), measured, 0.02);
  // tune's text shows the same number, as a percentage.
  EXPECT_NE(tuned.out.find("succeeded MFU " + mfu_text(measured)), std::string::npos)
    << tuned.out;
  EXPECT_NE(tuned.out.find("best: trial 1, MFU " + mfu_text(measured) + ", "), std::string::npos)
    << tuned.out;

  // The dashboard's JSON of the same pool.
  {
    auto opened = message_pool::open(dir + "/pool");
    ASSERT_TRUE(opened) << describe(opened.error());
    std::shared_ptr<message_pool> pool = std::move(*opened);
    dashboard_server server(pool);
    auto started = server.start();
    ASSERT_TRUE(started) << describe(started.error());
    httplib::Client cli("127.0.0.1", server.port());
    const auto res = cli.Get(("/api/sessions/" + session).c_str());
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    const auto d = nlohmann::json::parse(res->body);
    EXPECT_DOUBLE_EQ(mfu_of(d["trials"][0]), measured);
    EXPECT_DOUBLE_EQ(mfu_of(d["best"]), measured);
    const auto list = cli.Get("/api/sessions");
    ASSERT_TRUE(list);
    const auto sessions = nlohmann::json::parse(list->body)["sessions"];
    ASSERT_EQ(sessions.size(), 1u);
    EXPECT_DOUBLE_EQ(mfu_of(sessions[0]["best"]), measured);
  }
  fs::remove_all(dir);
}

} // namespace
} // namespace paratune
