// `paratune report` end to end: a session tuned on the simulated cluster
// (trials failing and stopped early), read back from its pool as markdown,
// HTML and JSON, and the HTML rendered by headless Chromium.

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/charts.hpp"
#include "tests/e2e/png_image.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// Llama3-8B on 8 simulated A100s, its trials on a local pool running
// paratune-sim. Every simulated run carries an injected NCCL timeout or node
// loss at a random iteration (seeded by the trial number), so the trials the
// early stopper ends first are measured and the rest fail.
std::string job_text(const std::string& name, const std::string& early_stop,
                     const std::string& baseline) {
  const auto sim = test::bin_dir() + "/paratune-sim";
  return "name: '" + name + "'\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
         "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
         "trials: 8\nstop: budget\ntokens: 15e12\n" + early_stop + baseline +
         "pools:\n"
         "  - {name: gpu-box, kind: local, capacity: 1,\n"
         "     launch: [\"" + sim + "\", --sim-cluster, dgx-a100-80g, --sim-world-size,\n"
         "              \"{gpus_per_node}\", --sim-time-scale, \"0\", --sim-failure-rate, \"1\",\n"
         "              --sim-seed, \"{trial}\", \"{megatron_args}\"]}\n";
}

constexpr const char* early_stop = "early_stop: {warmup: 2, stable_after: 5, tolerance: 0.02, rung: true}\n";
// The initial configuration, with the throughput a team might have measured for it.
constexpr const char* baseline =
  "baseline: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full, tflops_per_gpu: 120}\n";

struct report_cli : ::testing::Test {
  void SetUp() override {
    dir = test::make_temp_dir("report-cli");
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  }
  void TearDown() override { fs::remove_all(dir); }

  test::program_result paratune(std::vector<std::string> args) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    return test::run_program(args);
  }

  // Runs `tune --json` on the job and returns what it printed; `status` is
  // 1 when no trial is to succeed.
  nlohmann::json tune(const std::string& job_yaml, const std::string& pool, int status = 0) {
    const auto job = test::write_file(dir, "job.yaml", job_yaml);
    const auto r = paratune({"tune", job, "--db", pool, "--json"});
    EXPECT_EQ(r.status, status) << r.err;
    return nlohmann::json::parse(r.out);
  }

  std::string dir;
};

int measured_count(const nlohmann::json& tuned) {
  int n = 0;
  for (const auto& t : tuned["trials"])
    n += (t["status"] == "succeeded" || t["status"] == "stopped") && t["tflops_per_gpu"] > 0;
  return n;
}

TEST_F(report_cli, json_md_and_html_show_the_trials_tune_printed) {
  const auto pool = dir + "/pool";
  const auto tuned = tune(job_text("llama3-8b-report", early_stop, baseline), pool);
  const auto session = tuned["session"].get<std::string>();
  const auto& trials = tuned["trials"];
  ASSERT_EQ(trials.size(), 8u);
  int failed = 0, stopped = 0;
  for (const auto& t : trials) {
    failed += t["status"] == "failed";
    stopped += t["status"] == "stopped";
  }
  ASSERT_GE(failed, 1) << trials.dump(1);
  ASSERT_GE(stopped, 1) << trials.dump(1);
  const int measured = measured_count(tuned);

  // JSON: the same trials and values, the decision chain, the chart points.
  const auto js = paratune({"report", session, "--db", pool, "--format", "json"});
  ASSERT_EQ(js.status, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  EXPECT_EQ(j["trials"], trials);
  EXPECT_EQ(j["best"], tuned["best"]);
  EXPECT_EQ(j["full_run"], tuned["full_run"]);
  ASSERT_EQ(j["decisions"].size(), trials.size());
  for (size_t i = 0; i < trials.size(); ++i) {
    const auto& d = j["decisions"][i];
    EXPECT_EQ(d["trial"], trials[i]["index"]);
    EXPECT_EQ(d["status"], trials[i]["status"]);
    EXPECT_EQ(d["tflops_per_gpu"], trials[i]["tflops_per_gpu"]);
    EXPECT_FALSE(d["why"].get<std::string>().empty()) << d.dump();
    if (trials[i]["status"] == "failed") {
      EXPECT_EQ(d["diagnosis"]["kind"], trials[i]["failure"]) << d.dump();
    }
  }
  EXPECT_EQ(j["charts"]["mfu"]["measured"].size(), size_t(measured));
  EXPECT_EQ(j["charts"]["mfu"]["failed"].size(), size_t(failed));
  EXPECT_EQ(j["charts"]["mfu"]["stopped"].size(), size_t(stopped));
  // The baseline is the initial configuration: trial 1 ran it and failed,
  // its retry measured it, so that measurement prices it, not the job's 120.
  int retry = 0;
  for (const auto& t : trials)
    if (t.value("retry_of", 0) == 1 && t["status"] == "stopped")
      retry = t["index"].get<int>();
  ASSERT_GT(retry, 0) << trials.dump(1);
  const auto& b = j["full_run"]["baseline"];
  EXPECT_EQ(b["source"], "session_trial") << b.dump();
  EXPECT_EQ(b["trial"], retry);
  EXPECT_EQ(b["tflops_per_gpu"], trials[retry - 1]["tflops_per_gpu"]);
  const double best_hours = j["full_run"]["best"]["gpu_hours"].get<double>();
  EXPECT_NEAR(b["gpu_hours"].get<double>(),
              best_hours * tuned["best"]["tflops_per_gpu"].get<double>()
                / trials[retry - 1]["tflops_per_gpu"].get<double>(),
              1e-2 * best_hours);  // a trial's own pace: its iteration times, not its mean TFLOP/s
  EXPECT_NEAR(b["gpu_hours_saved"].get<double>(), b["gpu_hours"].get<double>() - best_hours, 1e-6);

  // Markdown beside its charts: a table row per trial with tune's values.
  const auto md_path = dir + "/out/report.md";
  fs::create_directories(dir + "/out");
  const auto md = paratune({"report", session, "--db", pool, "-o", md_path});
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_EQ(md.out, "");
  const auto text = read_file(md_path);
  for (const auto& t : trials) {
    const bool ran = (t["status"] == "succeeded" || t["status"] == "stopped") && t["tflops_per_gpu"] > 0;
    // The trial number, then the change from its parent as a second line.
    const auto plain = fmt::format("\n| {} | ", t["index"].get<int>());
    const auto with_change = fmt::format("\n| {}<br>", t["index"].get<int>());
    const auto row = text.find(with_change) != std::string::npos ? with_change : plain;
    const auto at = text.find(row);
    ASSERT_NE(at, std::string::npos) << row;
    const auto line = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
    const auto numbers =
      ran ? fmt::format(" | {} | {:.1f} | {:.1f} | {:.0f} | ", t["status"].get<std::string>(),
                        t["tflops_per_gpu"].get<double>(), 100 * t["mfu"].get<double>(),
                        t["peak_memory_mib"].get<double>())
          : fmt::format(" | {} | - | - | - | ", t["status"].get<std::string>());
    EXPECT_NE(line.find(numbers), std::string::npos) << line << "\nexpected " << numbers;
  }
  EXPECT_NE(text.find("![MFU per trial](report.mfu.svg)"), std::string::npos);
  EXPECT_NE(text.find(fmt::format("measured by trial {} of this session", retry)),
            std::string::npos);
  const auto mfu_svg = read_file(dir + "/out/report.mfu.svg");
  EXPECT_EQ(count_of(mfu_svg, "class=\"point measured\""), measured);
  EXPECT_EQ(count_of(mfu_svg, "class=\"marker failed\""), failed);
  EXPECT_TRUE(fs::exists(dir + "/out/report.throughput.svg"));
  const auto to_stdout = paratune({"report", session, "--db", pool});
  ASSERT_EQ(to_stdout.status, 0);
  EXPECT_NE(to_stdout.out.find("charts are omitted on standard output"), std::string::npos);

  // HTML: one file, the same rows.
  const auto html_path = dir + "/out/report.html";
  const auto html = paratune({"report", session, "--db", pool, "--format", "html", "-o", html_path});
  ASSERT_EQ(html.status, 0) << html.err;
  const auto page = read_file(html_path);
  EXPECT_EQ(count_of(page, "<tr data-trial="), int(trials.size()));
  EXPECT_EQ(count_of(page, "class=\"point measured\""), 2 * measured);  // throughput and MFU
  EXPECT_EQ(page.find("http"), std::string::npos);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir + "/out"))
    left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"report.html", "report.importance.svg", "report.md",
                                            "report.memory.svg", "report.mfu.svg",
                                            "report.parallel.svg", "report.throughput.svg",
                                            "report.trials.svg"}));
}

// A baseline no trial ran is priced at the job file's throughput, scaled
// from the best trial's pace: time per token goes as 1 / TFLOP/s.
TEST_F(report_cli, a_baseline_no_trial_ran_is_priced_at_the_job_files_throughput) {
  const auto tuned = tune(job_text("priced", early_stop,
                                   "baseline: {tp: 4, pp: 2, mbs: 1, gbs: 512, seq: 8192, "
                                   "recompute: full, tflops_per_gpu: 120}\n"),
                          dir + "/pool");
  const auto& f = tuned["full_run"];
  const auto& b = f["baseline"];
  EXPECT_EQ(b["source"], "job_file") << b.dump();
  EXPECT_FALSE(b.contains("trial"));
  EXPECT_DOUBLE_EQ(b["tflops_per_gpu"].get<double>(), 120);
  const double best_hours = f["best"]["gpu_hours"].get<double>();
  EXPECT_NEAR(b["gpu_hours"].get<double>(),
              best_hours * tuned["best"]["tflops_per_gpu"].get<double>() / 120, 1e-9 * best_hours);
  EXPECT_DOUBLE_EQ(b["iterations"].get<double>(), 15e12 / (512.0 * 8192.0));
  EXPECT_NEAR(b["days"].get<double>() * 24 * 8, b["gpu_hours"].get<double>(), 1e-6);
  const auto md = paratune({"report", tuned["session"].get<std::string>(), "--db", dir + "/pool"});
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_NE(md.out.find("at the 120.0 TFLOP/s/GPU the job file gives"), std::string::npos) << md.out;
}

TEST_F(report_cli, refusals_and_a_write_that_fails_leaves_nothing) {
  const auto pool = dir + "/pool";
  const auto tuned = tune(job_text("small", "", ""), pool, 1);
  const auto session = tuned["session"].get<std::string>();
  const auto nowhere = dir + "/missing/report.html";
  const auto r = paratune({"report", session, "--db", pool, "--format", "html", "-o", nowhere});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("error: cannot write " + nowhere + ": ", 0), 0u) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/missing"));
  // A read-only directory: the temporary file cannot be made, nothing is left.
  fs::create_directories(dir + "/ro");
  fs::permissions(dir + "/ro", fs::perms::owner_read | fs::perms::owner_exec);
  if (::geteuid() != 0) {  // root writes anyway
    const auto ro = paratune({"report", session, "--db", pool, "-o", dir + "/ro/r.md"});
    EXPECT_EQ(ro.status, 1);
    EXPECT_TRUE(fs::is_empty(dir + "/ro"));
  }
  fs::permissions(dir + "/ro", fs::perms::owner_all);

  const auto unknown = paratune({"report", "s20990101T000000-0000", "--db", pool});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_EQ(unknown.err, "error: no GPU tuning session 's20990101T000000-0000' in the pool " + pool + "\n");
  const auto hostile = paratune({"report", "x'; rm -rf ~", "--db", pool});
  EXPECT_EQ(hostile.status, 2);
  const auto absent = paratune({"report", session, "--db", dir + "/absent"});
  EXPECT_EQ(absent.status, 2);
  EXPECT_FALSE(fs::exists(dir + "/absent"));
  const auto format = paratune({"report", session, "--db", pool, "--format", "pdf"});
  EXPECT_EQ(format.status, 2);
}

TEST_F(report_cli, a_baseline_above_the_devices_peak_is_refused) {
  const auto job = test::write_file(
    dir, "job.yaml",
    job_text("x", "", "baseline: {tp: 8, gbs: 512, seq: 8192, tflops_per_gpu: 400}\n"));
  const auto r = paratune({"tune", job, "--db", dir + "/pool"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "error: " + job + ": baseline: field 'tflops_per_gpu': 400 is above the "
                   "A100-SXM4-80GB peak of 312 TFLOP/s per device in fp16; a measured "
                   "throughput cannot exceed it\n");
  EXPECT_FALSE(fs::exists(dir + "/pool"));
  const auto typo = test::write_file(dir, "typo.yaml",
                                     job_text("x", "", "baseline: {tp: 8, gbs: 512, seq: 8192, "
                                                       "tflops_per_gpu: fast}\n"));
  const auto t = paratune({"tune", typo, "--db", dir + "/pool"});
  EXPECT_EQ(t.status, 2);
  // The file, the line and the field.
  EXPECT_NE(t.err.find(typo + ": baseline: line "), std::string::npos) << t.err;
  EXPECT_NE(t.err.find(": field 'tflops_per_gpu': expected a number"), std::string::npos) << t.err;
  const auto key = test::write_file(dir, "key.yaml",
                                    job_text("x", "", "baseline: {tp: 8, gbs: 512, seq: 8192, "
                                                      "warp: 3}\n"));
  const auto k = paratune({"tune", key, "--db", dir + "/pool"});
  EXPECT_EQ(k.status, 2);
  EXPECT_NE(k.err.find(": baseline: "), std::string::npos) << k.err;
}

} // namespace
} // namespace paratune
