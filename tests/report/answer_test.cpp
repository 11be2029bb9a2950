// The answer a report opens on, the trials table's columns, parameter
// importance, and the charts added for issue 27: concrete values.

#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "report/answer_html.hpp"
#include "report/chart_points.hpp"
#include "report/charts.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/markdown_report.hpp"
#include "report/parameter_importance.hpp"
#include "report/session_answer.hpp"
#include "report/session_report.hpp"
#include "report/svg_canvas.hpp"
#include "report/tpu_report.hpp"
#include "tests/report/sample_summary.hpp"

namespace paratune {
namespace {

trial_row tp_mbs_row(int index, const char* tp, const char* mbs, double tflops, double peak) {
  auto r = test::sample_row(index, trial_status::succeeded, tflops / 312, tflops);
  r.config["tp"] = tp;
  r.config["mbs"] = mbs;
  r.peak_memory_mib = peak;
  r.memory_limit_mib = 81920;
  return r;
}

// Six measured trials: tp splits the throughput in two groups (about 100
// and 150), mbs explains nothing; trial 7 failed with tp 4.
session_summary two_key_session() {
  session_summary s;
  s.session = "s2";
  s.job.model = test::llama3_8b_model();
  s.job.precision = "bf16";
  s.job.world_size = 8;
  s.state = session_state::finished;
  s.trials = {tp_mbs_row(1, "1", "1", 100, 50000), tp_mbs_row(2, "1", "2", 102, 52000),
              tp_mbs_row(3, "1", "1", 98, 51000),  tp_mbs_row(4, "2", "2", 150, 60000),
              tp_mbs_row(5, "2", "1", 148, 61000), tp_mbs_row(6, "2", "2", 152, 70000)};
  auto failed = test::sample_row(7, trial_status::failed, 0, 0);
  failed.config["tp"] = "4";
  failed.config["mbs"] = "1";
  failed.failure = failure_kind::oom;
  s.trials.push_back(failed);
  s.first_success = s.trials[0];
  s.best = s.trials[5];
  return s;
}

TEST(ParameterImportance, OmegaSquaredPerKeyOnMeasuredTrials) {
  const auto imp = parameter_importance(two_key_session());
  EXPECT_EQ(imp.measured, 6);
  ASSERT_EQ(imp.keys.size(), 2u);
  // tp: means 100 and 150 around 125; SS_total 3766, SS_between 3750,
  // MS_within 16 / 4 = 4: (3750 - 4) / (3766 + 4).
  EXPECT_EQ(imp.keys[0].key, "tp");
  EXPECT_EQ(imp.keys[0].levels, 2);  // the failed trial's tp 4 was not measured
  EXPECT_NEAR(imp.keys[0].effect, 3746.0 / 3770.0, 1e-12);
  // mbs: SS_between 560.67 below MS_within 801.33: nothing, clamped to 0.
  EXPECT_EQ(imp.keys[1].key, "mbs");
  EXPECT_DOUBLE_EQ(imp.keys[1].effect, 0);
  // The shares of the one total: tp explains all that is explained.
  EXPECT_DOUBLE_EQ(imp.keys[0].share, 1);
  EXPECT_DOUBLE_EQ(imp.keys[1].share, 0);
}

// Issue 45, part 7: trial 2 changes tp, dist_opt, fused_ce and recompute at
// once, and they keep those values after: no analysis can tell the four
// apart, so they are one group with one figure, and the shares of the one
// total add up to 100% (they gave 97.8%, 97.6%, 97.6% and 97.6% before).
TEST(ParameterImportance, KeysThatAlwaysChangedTogetherAreOneGroupAndSharesSumTo100) {
  session_summary s;
  s.job.world_size = 8;
  const auto row = [](int index, bool tuned, const char* mbs, double tflops) {
    auto r = test::sample_row(index, trial_status::succeeded, tflops / 312, tflops);
    r.config["tp"] = tuned ? "2" : "8";
    r.config["dist_opt"] = tuned ? "true" : "false";
    r.config["fused_ce"] = tuned ? "true" : "false";
    r.config["recompute"] = tuned ? "none" : "full";
    r.config["mbs"] = mbs;
    r.config["pp"] = "1";
    return r;
  };
  s.trials = {row(1, false, "1", 118), row(2, true, "1", 220), row(3, true, "2", 226),
              row(4, true, "1", 221), row(5, true, "2", 225)};
  choose_best_of(s);
  const auto imp = parameter_importance(s);
  EXPECT_EQ(imp.measured, 5);
  ASSERT_EQ(imp.keys.size(), 2u);
  EXPECT_EQ(imp.keys[0].key, "tp + recompute + dist_opt + fused_ce");
  EXPECT_EQ(imp.keys[0].keys,
            (std::vector<std::string>{"tp", "recompute", "dist_opt", "fused_ce"}));
  EXPECT_EQ(imp.keys[1].key, "mbs");
  // The group: trial 1 (118) against trials 2-5 (mean 223), around 202;
  // n 5, k 2: SS_total 8846, SS_between 8820, MS_within 26 / 3.
  const double ms_within = (8846.0 - 8820.0) / 3;
  EXPECT_NEAR(imp.keys[0].effect, (8820.0 - ms_within) / (8846.0 + ms_within), 1e-9);
  EXPECT_GT(imp.keys[0].effect, 0.9);
  double total = 0;
  for (const auto& k : imp.keys) {
    ASSERT_TRUE(k.estimable) << k.key;
    total += k.share;
  }
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_NEAR(imp.keys[0].share, imp.keys[0].effect / (imp.keys[0].effect + imp.keys[1].effect),
              1e-12);
  // The chart names the group once and says what its numbers are.
  const auto svg = importance_chart_svg(s);
  EXPECT_NE(svg.find(">tp + recompute + dist_opt + fused_ce</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("data-key=\"dist_opt\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("the shares add up to 100%"), std::string::npos) << svg;
  EXPECT_NE(svg.find("effect size: omega squared"), std::string::npos) << svg;
  EXPECT_NE(svg.find(fmt::format("data-share-pct=\"{:.1f}\"", 100 * imp.keys[0].share)),
            std::string::npos) << svg;
  EXPECT_NE(svg.find(fmt::format("(effect size {:.2f})", imp.keys[0].effect)), std::string::npos)
    << svg;
  const auto j = charts_json(s)["importance"];
  EXPECT_EQ(j["keys"][0]["keys"].size(), 4u);
  EXPECT_NEAR(j["keys"][0]["share"].get<double>() + j["keys"][1]["share"].get<double>(), 1.0,
              1e-12);
}

TEST(ParameterImportance, NoneUnderThreeMeasuredAndNotEstimableWithOneTrialPerValue) {
  auto s = two_key_session();
  s.trials.resize(2);
  EXPECT_TRUE(parameter_importance(s).keys.empty());
  s = two_key_session();
  s.trials = {tp_mbs_row(1, "1", "1", 100, 1), tp_mbs_row(2, "2", "1", 110, 1),
              tp_mbs_row(3, "4", "1", 120, 1)};
  const auto imp = parameter_importance(s);
  ASSERT_EQ(imp.keys.size(), 1u);
  EXPECT_FALSE(imp.keys[0].estimable);
  const auto svg = importance_chart_svg(s);
  EXPECT_NE(svg.find("not estimable"), std::string::npos);
  EXPECT_NE(svg.find("effect size: omega squared (one-way ANOVA, bias-corrected)"),
            std::string::npos) << svg;
}

TEST(TrialTable, TheKeysThatVaryAreColumnsAndTheChangeASecondLine) {
  auto s = two_key_session();
  s.trials[3].change = "Change TP from 1 to 2.";
  EXPECT_EQ(varying_keys(s), (std::vector<std::string>{"mbs", "tp"}));
  const auto t = trial_table_of(s);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"trial", "mbs", "tp", "status", "TFLOP/s/GPU",
                                                 "MFU (%)", "peak (MiB)", "stop / failure"}));
  ASSERT_EQ(t.rows.size(), 7u);
  EXPECT_EQ(t.rows[3].cells, (std::vector<std::string>{"4", "2", "2", "succeeded", "150.0",
                                                       "48.1", "60000", ""}));
  EXPECT_EQ(t.rows[3].change, "Change TP from 1 to 2.");
  EXPECT_EQ(t.rows[6].cells[2], "4");
  EXPECT_EQ(t.rows[6].cells[7], "oom");
  const auto md = render_markdown({s, {}}, {});
  EXPECT_NE(md.find("| 4<br>Change TP from 1 to 2. | 2 | 2 | succeeded | 150.0 | 48.1 | 60000 |"),
            std::string::npos) << md;
}

TEST(Exploration, APredictionBelowTheBestBeforeIsLabelled) {
  auto s = two_key_session();
  s.trials[4].predicted_tflops = 140;  // trial 5, after trial 4 measured 150
  s.trials[4].exploration = true;      // as summarize marks it
  s.trials[4].incumbent_tflops = 150;
  s.trials[4].incumbent = 4;
  EXPECT_EQ(exploration_note(s.trials[4]),
            "exploration: predicted 140.0 TFLOP/s/GPU, 6.7% below the best measured before it "
            "(150.0, trial 4)");
  const auto t = trial_table_of(s);
  EXPECT_TRUE(t.rows[4].exploration);
  EXPECT_FALSE(t.rows[3].exploration);
  const auto html = render_html({s, {}});
  EXPECT_NE(html.find("<tr data-trial=\"5\" class=\"exploration\">"), std::string::npos);
}

TEST(SessionAnswer, BestConfigurationFiguresGainsAndCommand) {
  auto s = two_key_session();
  s.job.baseline = {true, {{"tp", "8"}}, 120};  // not run here: the job file's figure
  const auto a = answer_of(s);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->trial, 6);
  EXPECT_DOUBLE_EQ(a->tflops_per_gpu, 152);
  EXPECT_NEAR(a->mfu_pct, 100 * 152.0 / 312, 1e-9);
  EXPECT_DOUBLE_EQ(a->peak_memory_mib, 70000);
  EXPECT_EQ(a->first_trial, 1);
  EXPECT_NEAR(*a->gain_over_first_pct, 52, 1e-9);
  EXPECT_NEAR(*a->gain_over_baseline_pct, 100 * (152.0 / 120 - 1), 1e-9);
  EXPECT_EQ(a->baseline_source, "the job file");
  EXPECT_NE(a->command.find("--tensor-model-parallel-size 2"), std::string::npos) << a->command;
  EXPECT_NE(a->command.find("--micro-batch-size 2"), std::string::npos) << a->command;
  EXPECT_EQ(a->command.find("--train-iters"), std::string::npos);  // a production run's
  const auto figures = answer_figures(*a);
  EXPECT_EQ(figures[1].second, "152.0 TFLOP/s per GPU");
  EXPECT_EQ(figures[2].second, "48.7%");
  EXPECT_EQ(figures[4].second, "+52.0% (against trial 1)");
  EXPECT_EQ(figures[5].second, "+26.7% (baseline measured by the job file)");

  const auto j = report_json({s, {}});
  EXPECT_EQ(j["answer"]["trial"], 6);
  EXPECT_EQ(j["answer"]["config"]["tp"], "2");
  EXPECT_NEAR(j["answer"]["gain_over_first_pct"].get<double>(), 52, 1e-9);
  EXPECT_TRUE(j["answer"]["megatron_args"].is_array());
  EXPECT_EQ(j["charts"]["parallel"]["lines"].size(), 6u);
  EXPECT_EQ(j["charts"]["importance"]["keys"][0]["key"], "tp");
}

TEST(SessionAnswer, EveryFormatOpensOnTheAnswer) {
  const session_report r{two_key_session(), {}};
  const auto md = render_markdown(r, {});
  const auto answer = md.find("## Answer");
  ASSERT_NE(answer, std::string::npos);
  EXPECT_LT(answer, md.find("## Trials"));
  EXPECT_LT(answer, md.find("## Decisions"));
  EXPECT_NE(md.find("| MFU | 48.7% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| tp | 2 |"), std::string::npos);
  EXPECT_NE(md.find("```sh\n"), std::string::npos);
  const auto html = render_html(r);
  const auto section = html.find("<section id=\"answer\"");
  ASSERT_NE(section, std::string::npos);
  EXPECT_LT(section, html.find("<h2>Charts</h2>"));
  EXPECT_LT(section, html.find("<h2>Decisions</h2>"));
  EXPECT_NE(html.find("<dd data-figure=\"mfu\">48.7%</dd>"), std::string::npos);
  EXPECT_NE(html.find("<tr data-key=\"tp\"><td>tp</td><td>2</td></tr>"), std::string::npos);
  EXPECT_EQ(test::occurrences(html, "<svg "), 6);
  session_summary none;
  EXPECT_NE(answer_html(none).find("No trial was measured yet"), std::string::npos);
}

TEST(FittedAxes, TicksBracketTheDataWithoutRunningToZero) {
  const auto t = data_ticks(52, 77, 5);
  EXPECT_DOUBLE_EQ(t.bottom, 50);
  EXPECT_DOUBLE_EQ(t.top, 80);
  EXPECT_DOUBLE_EQ(t.step, 10);
  const auto flat = data_ticks(150, 150, 5);
  EXPECT_LE(flat.bottom, 150);
  EXPECT_GE(flat.top, 150);
  EXPECT_GT(flat.bottom, 100);
  // The MFU chart of trials at 52-77 % runs 50..80, not 0..100.
  session_summary s;
  s.trials = {test::sample_row(1, trial_status::succeeded, 0.52, 180),
              test::sample_row(2, trial_status::succeeded, 0.77, 240)};
  const auto svg = mfu_chart_svg(s);
  EXPECT_NE(svg.find(">50</text>"), std::string::npos);
  EXPECT_NE(svg.find(">80</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">0</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">100</text>"), std::string::npos);
}

TEST(NewCharts, ParallelMemoryPredictedAndLive) {
  auto s = two_key_session();
  const auto pc = parallel_chart_svg(s);
  EXPECT_EQ(test::occurrences(pc, "class=\"pc-line"), 6);
  EXPECT_EQ(test::occurrences(pc, "class=\"pc-line best\""), 1);
  EXPECT_EQ(test::occurrences(pc, "class=\"pc-axis\""), 3);  // mbs, tp, TFLOP/s/GPU
  const auto d = parallel_chart_points(s);
  ASSERT_EQ(d.axes.size(), 2u);
  EXPECT_EQ(d.axes[1].levels, (std::vector<std::string>{"1", "2"}));  // tp 4 never measured

  const auto mem = memory_chart_svg(s);
  EXPECT_EQ(test::occurrences(mem, "class=\"point memory\""), 6);
  EXPECT_NE(mem.find("class=\"memory-limit\" data-limit-mib=\"81920\""), std::string::npos);
  EXPECT_NE(mem.find("device memory 80 GiB"), std::string::npos);

  s.trials[0].predicted_tflops = 110;
  s.trials[3].predicted_tflops = 140;
  const auto pm = throughput_chart_svg(s);
  EXPECT_EQ(test::occurrences(pm, "class=\"point-label\""), 2);
  EXPECT_NE(pm.find("data-trial=\"4\" x="), std::string::npos);
  // Axes fitted to 100..150: ticks of 20 from 80 to 160, no 0.
  EXPECT_NE(pm.find(">80</text>"), std::string::npos) << pm;
  EXPECT_NE(pm.find(">160</text>"), std::string::npos);
  EXPECT_EQ(pm.find(">0</text>"), std::string::npos);

  const auto live = live_chart_svg({{8, {120, 130, 131}}, {9, {}}});
  EXPECT_EQ(test::occurrences(live, "class=\"live-line\""), 1);
  EXPECT_NE(live.find("data-trial=\"8\" data-points=\"3\" data-last=\"131.00\""),
            std::string::npos);
  EXPECT_NE(live_chart_svg({}).find("no running trial has logged"), std::string::npos);
}

TEST(TrialCharts, ACancelledTrialIsNotDrawnAsStoppedEarly) {
  auto s = test::sample_summary();
  s.trials[4].stop = stop_reason::cancelled;  // trial 5
  const auto d = trial_chart_points(s, per_trial_metric::tflops_per_gpu);
  EXPECT_EQ(d.stopped, std::vector<int>{3});
  EXPECT_EQ(d.cancelled, std::vector<int>{5});
  const auto svg = trials_chart_svg(s);
  EXPECT_EQ(test::occurrences(svg, "class=\"marker cancelled\""), 1);
  EXPECT_NE(svg.find(">cancelled</text>"), std::string::npos);
  decision dc;
  dc.finished = true;
  dc.status = trial_status::stopped;
  dc.stop = stop_reason::cancelled;
  EXPECT_EQ(outcome_sentence(dc).rfind("cancelled", 0), 0u);
  auto measured = test::sample_row(5, trial_status::stopped, 0.3, 120);
  measured.stop = stop_reason::cancelled;
  measured.reason = "cancelled by the user";
  const auto line = render_trial_line(measured, {10, {}});
  EXPECT_NE(line.find("cancelled: cancelled by the user"), std::string::npos) << line;
  EXPECT_EQ(line.find("stopped early"), std::string::npos);
}

wire::tpu_trial_row tpu_run(int trial, const char* mesh, double step_ms, bool job_mesh,
                            const char* error = "") {
  wire::tpu_trial_row r;
  r.trial = trial;
  r.mesh = mesh;
  r.step_time_ms = step_ms;
  r.error = error;
  r.job_mesh = job_mesh;
  r.started_ms = 1000 * trial;
  r.ended_ms = 1000 * trial + 500;
  return r;
}

const char* const job_mesh = "replica=1,data=4,model=4,seq=1";

// A TPU session's answer says how the fastest run compares with the job's
// own mesh; when the fastest is the job's mesh, it says so, not "x1.00".
TEST(tpu_answer, measures_the_fastest_run_against_the_jobs_own_mesh) {
  wire::tpu_session_end end;
  end.job_mesh = job_mesh;
  end.trials = {tpu_run(1, job_mesh, 812.4, true),
                tpu_run(2, "replica=1,data=8,model=2,seq=1", 615.2, false),
                tpu_run(3, "replica=1,data=16,model=1,seq=1", 0, false, "out of memory")};
  end.best_trial = 2;
  EXPECT_EQ(tpu_gain_text(end), "x1.32 over the job's own mesh, trial 1");
  const auto j = tpu_report_json("s1", end);
  EXPECT_EQ(j["best"]["baseline_trial"], 1);
  EXPECT_DOUBLE_EQ(j["best"]["speedup"].get<double>(), 812.4 / 615.2);
  EXPECT_EQ(j["job_mesh"], job_mesh);
  EXPECT_EQ(j["trials"][0]["job_mesh"], true);
  EXPECT_EQ(tpu_best_line(j), "best: trial 2, mesh replica=1,data=8,model=2,seq=1, 615 ms per "
                              "step (x1.32 over the job's own mesh, trial 1)");
  EXPECT_NE(render_tpu_markdown("s1", end).find(
              "**Best mesh:** `replica=1,data=8,model=2,seq=1`, 615.2 ms per step (trial 2), x1.32 "
              "over the job's own mesh, trial 1.\n"),
            std::string::npos);
  end.trials[1].step_time_ms = 900;
  end.best_trial = 1;
  EXPECT_EQ(tpu_gain_text(end), "the job's own mesh: no other mesh was faster");
  EXPECT_EQ(tpu_answer_html(end),
            "<p class=\"answer\"><b>Best mesh:</b> <code>replica=1,data=4,model=4,seq=1</code>, "
            "812.4 ms per step (trial 1), the job&#39;s own mesh: no other mesh was faster.</p>\n");
  end.best_trial = 0;
  EXPECT_EQ(tpu_best_line(tpu_report_json("s1", end)), "");
}

// The planner's fastest mesh may run first (first_mesh_trial), and the
// job's own mesh may fail: the gain is over the job's mesh as first
// measured, or the answer says why there is none, never "x0.00".
TEST(tpu_answer, says_why_there_is_no_gain_when_the_jobs_mesh_has_no_measurement) {
  wire::tpu_session_end end;
  end.job_mesh = job_mesh;
  end.trials = {tpu_run(1, "replica=1,data=8,model=2,seq=1", 615.2, false),
                tpu_run(2, job_mesh, 0, true, "out of memory: RESOURCE_EXHAUSTED"),
                tpu_run(3, job_mesh, 812.4, true)};
  end.trials[2].retry_of = 2;
  end.best_trial = 1;
  // The retry measured it.
  EXPECT_EQ(tpu_gain_text(end), "x1.32 over the job's own mesh, trial 3");
  end.trials.pop_back();
  EXPECT_EQ(tpu_gain_text(end),
            "the job's own mesh failed in trial 2: nothing measured to compare with");
  EXPECT_DOUBLE_EQ(tpu_speedup(end), 0);
  EXPECT_EQ(tpu_report_json("s1", end)["best"]["baseline_trial"], 0);
  end.trials[1].error.clear();
  end.trials[1].ended_ms = 0;
  EXPECT_EQ(tpu_gain_text(end),
            "the job's own mesh is still running in trial 2: nothing measured to compare with");
  end.trials.pop_back();
  EXPECT_EQ(tpu_gain_text(end), "the job's own mesh (replica=1,data=4,model=4,seq=1) was not "
                                "run: nothing measured to compare with");
  // The session stored why it would not run (core/diagnosis's
  // job_mesh_verdict): the answer says it.
  end.job_mesh_verdict =
    "predicted not to fit: a peak of 139.3 GiB per chip against 30.1 GiB of usable HBM";
  EXPECT_EQ(tpu_gain_text(end), "the job's own mesh (replica=1,data=4,model=4,seq=1) was not "
                                "run: predicted not to fit: a peak of 139.3 GiB per chip against "
                                "30.1 GiB of usable HBM; nothing measured to compare with");
  EXPECT_EQ(tpu_report_json("s1", end)["job_mesh_verdict"], end.job_mesh_verdict);
  EXPECT_NE(render_tpu_markdown("s1", end).find("was not run: predicted not to fit: a peak of "
                                                "139.3 GiB per chip"),
            std::string::npos);
}

// Records from before job_mesh: the first measured run is the baseline
// (the first run failed here; the answer once read "x0.00").
TEST(tpu_answer, older_records_measure_against_the_first_measured_run) {
  wire::tpu_session_end end;
  end.trials = {tpu_run(1, "replica=1,data=16,model=1,seq=1", 0, false, "out of memory"),
                tpu_run(2, job_mesh, 900, false),
                tpu_run(3, "replica=1,data=8,model=2,seq=1", 600, false)};
  end.best_trial = 3;
  EXPECT_EQ(tpu_gain_text(end), "x1.50 over the first measured run, trial 2");
  end.best_trial = 2;
  end.trials[2].step_time_ms = 950;
  EXPECT_EQ(tpu_gain_text(end), "the first measured run: no later mesh was faster");
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

// Issue 45, part 3: two trials measured the same 236.1 TFLOP/s/GPU; the
// answer takes the simpler one and says why, in every format; a third
// within noise with 18.9 GiB more headroom then wins, and says so.
TEST(SessionAnswer, TrialsWithinNoiseAreDecidedByTheStatedRuleEverywhere) {
  session_summary s;
  s.session = "tie";
  s.job.job_name = "tie";
  s.job.model = test::llama3_8b_model();
  s.job.precision = "fp16";
  s.job.world_size = 8;
  s.job.framework = "megatron-lm";
  s.state = session_state::converged;
  const auto row = [](int index, const char* tp, const char* pp, const char* overlap,
                      double tflops, double peak) {
    auto r = test::sample_row(index, trial_status::succeeded, tflops / 312, tflops);
    r.config["tp"] = tp;
    r.config["pp"] = pp;
    r.config["overlap_grad"] = overlap;
    r.config["mbs"] = "1";
    r.peak_memory_mib = peak;
    r.memory_limit_mib = 81920;
    return r;
  };
  s.trials = {row(1, "8", "1", "false", 118.1, 24193), row(2, "1", "2", "false", 236.1, 73216),
              row(3, "1", "2", "true", 236.1, 73216)};
  choose_best_of(s);
  ASSERT_TRUE(s.best);
  EXPECT_EQ(s.best->index, 2);
  const std::string simpler =
    "Trials 2 and 3 measured within noise of each other (236.1 vs 236.1 TFLOP/s/GPU, within "
    "1%); trial 2 is chosen as the simpler configuration: 1 key fewer off its default than "
    "trial 3, at the same memory headroom.";
  EXPECT_EQ(s.tie_text, simpler);
  EXPECT_EQ(answer_of(s)->tie, simpler);
  EXPECT_NE(render_markdown({s, {}}, {}).find(simpler), std::string::npos);
  EXPECT_NE(answer_html(s).find("<p class=\"tie-break\">" + simpler + "</p>"), std::string::npos);
  EXPECT_NE(render_text(s).find(simpler), std::string::npos);
  EXPECT_EQ(answer_json(s)["tie_break"], simpler);

  s.trials.push_back(row(4, "2", "1", "false", 235.2, 53868));
  choose_best_of(s);
  EXPECT_EQ(s.best->index, 4);
  EXPECT_EQ(s.tie_text,
            "Trials 2, 3 and 4 measured within noise of each other (236.1, 236.1 and 235.2 "
            "TFLOP/s/GPU, within 1%); trial 4 is chosen for 18.9 GiB more memory headroom than "
            "trial 2, the highest measurement.");
  EXPECT_EQ(answer_of(s)->trial, 4);
  EXPECT_NE(answer_of(s)->command.find("--tensor-model-parallel-size 2"), std::string::npos);
}

// Issue 45, part 9: the answer's configuration opens on the parallel sizes
// (dp from the world size), then the searched keys; the rest is folded
// away, and the command comes before the key table.
TEST(SessionAnswer, ParallelSizesFirstThenSearchedKeysThenTheRestFolded) {
  auto s = two_key_session();
  s.best->config["overlap_grad"] = "false";
  s.best->config["seq"] = "8192";
  s.best->config["pp"] = "1";
  s.job.search = {{"mbs", {"1", "2"}}, {"overlap_grad", {"false", "true"}}};
  const auto a = answer_of(s);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->parallel, (std::vector<std::pair<std::string, std::string>>{
                           {"tp", "2"}, {"pp", "1"}, {"dp", "4"}, {"mbs", "2"}}));
  EXPECT_EQ(a->searched, (std::vector<std::pair<std::string, std::string>>{
                           {"overlap_grad", "false"}}));
  EXPECT_EQ(a->other, (std::vector<std::pair<std::string, std::string>>{{"gbs", "512"},
                                                                        {"seq", "8192"}}));
  EXPECT_EQ(parallel_sizes_text(*a), "tp 2, pp 1, dp 4, mbs 2");
  const auto md = render_markdown({s, {}}, {});
  EXPECT_NE(md.find("| Parallel sizes | tp 2, pp 1, dp 4, mbs 2 |"), std::string::npos) << md;
  EXPECT_LT(md.find("### Production command"), md.find("### Best configuration"));
  EXPECT_NE(md.find("| tp | 2 |\n| pp | 1 |\n| dp | 4 |\n| mbs | 2 |\n| overlap\\_grad | false |\n"
                    "\n<details><summary>Other keys (2)"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| gbs | 512 |\n| seq | 8192 |\n\n</details>"), std::string::npos) << md;
  const auto html = answer_html(s);
  EXPECT_LT(html.find("<tr data-key=\"tp\">"), html.find("<tr data-key=\"overlap_grad\">"));
  EXPECT_LT(html.find("<details class=\"other-keys\">"), html.find("<tr data-key=\"seq\">"));
  EXPECT_NE(render_text(s).find("configuration: tp=2 pp=1 dp=4 mbs=2 overlap_grad=false\n"
                                "other keys (not searched): gbs=512 seq=8192\n"),
            std::string::npos) << render_text(s);
}

} // namespace
} // namespace paratune
