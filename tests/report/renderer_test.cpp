#include <string>

#include <gtest/gtest.h>

#include "messages/codec.hpp"
#include "report/charts.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/markdown_report.hpp"
#include "tests/report/sample_summary.hpp"

namespace paratune {
namespace {

// Trial 1 chosen and measured; trial 2 chosen, failed, diagnosed.
std::vector<wire::envelope> two_trial_history(const std::string& job_name) {
  wire::session_opened job;
  job.job_name = job_name;
  job.model = test::llama3_8b_model();
  job.precision = "fp16";
  job.cluster.name = "dgx-a100-80g";
  job.cluster.device_name = "A100-SXM4-80GB";
  job.world_size = 8;
  job.trials = 4;
  wire::proposal p1;
  p1.trial = 1;
  p1.change = "Run the initial configuration.";
  p1.why = "the job's starting point";
  p1.health = "PERFORMANCE_TUNE";
  p1.reasoning = "line one\nline <two>";
  p1.predicted_tflops = 150;
  p1.config = {{"tp", "8"}, {"mbs", "1"}, {"gbs", "512"}, {"seq", "8192"}};
  wire::trial_result r1;
  r1.trial = 1;
  r1.config = p1.config;
  r1.status = trial_status::stopped;
  r1.stop = stop_reason::stable;
  r1.reason = "stable: the last 5 iterations lie within 1.8%";
  r1.tflops_per_gpu = 140.25;
  r1.mfu = 0.4496;
  r1.peak_memory_mib = 61234;
  wire::proposal p2 = p1;
  p2.trial = 2;
  p2.change = "Change MBS from 1 to 4.";
  p2.why = "MBS | larger";
  p2.predicted_tflops = 0;
  wire::trial_result r2;
  r2.trial = 2;
  r2.config = {{"tp", "8"}, {"mbs", "4"}, {"gbs", "512"}, {"seq", "8192"}};
  r2.status = trial_status::failed;
  r2.error_kind = failure_kind::oom;
  r2.reason = "CUDA out of memory";
  wire::failure_diagnosis f2;
  f2.trial = 2;
  f2.kind = failure_kind::oom;
  f2.confidence = 92;
  f2.summary = "MBS 4 caused CUDA OutOfMemoryError <script>";
  return {wire::make_envelope("s1", 0, job), wire::make_envelope("s1", 1, p1),
          wire::make_envelope("s1", 1, r1), wire::make_envelope("s1", 2, p2),
          wire::make_envelope("s1", 2, r2), wire::make_envelope("s1", 2, f2)};
}

TEST(DecisionChain, JoinsProposalResultAndDiagnosisPerTrial) {
  const auto chain = decision_chain(two_trial_history("job"));
  ASSERT_EQ(chain.size(), 2u);
  EXPECT_EQ(chain[0].trial, 1);
  EXPECT_EQ(chain[0].health, "PERFORMANCE_TUNE");
  EXPECT_EQ(chain[0].status, trial_status::stopped);
  EXPECT_EQ(chain[0].stop, stop_reason::stable);
  EXPECT_DOUBLE_EQ(chain[0].predicted_tflops, 150);
  EXPECT_FALSE(chain[0].diagnosed);
  EXPECT_EQ(chain[1].change, "Change MBS from 1 to 4.");
  EXPECT_TRUE(chain[1].diagnosed);
  EXPECT_EQ(chain[1].failure, failure_kind::oom);
  EXPECT_EQ(chain[1].confidence, 92);
  EXPECT_EQ(outcome_sentence(chain[0]),
            "stopped early (stable): 140.2 TFLOP/s/GPU, MFU 45.0%, peak 61234 MiB; stable: the "
            "last 5 iterations lie within 1.8%");
  EXPECT_EQ(outcome_sentence(chain[1]), "failed: CUDA out of memory");
}

TEST(HtmlReport, EscapesEveryPoolStringAndReferencesNothingOutside) {
  const auto html =
    render_html(report_of("s1", two_trial_history("<script>alert(\"x\")</script> & 'q'")));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;"),
            std::string::npos);
  EXPECT_NE(html.find("OutOfMemoryError &lt;script&gt; (oom, confidence 92%)"), std::string::npos);
  EXPECT_NE(html.find("line one\nline &lt;two&gt;"), std::string::npos);
  for (const char* outside : {"http://", "https://", "src=", "url(", "@import"})
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  EXPECT_EQ(test::occurrences(html, "<svg "), 6);
  // One point and one failure mark in each per-trial chart (MFU, throughput).
  EXPECT_EQ(test::occurrences(html, "class=\"point measured\""), 2);
  EXPECT_EQ(test::occurrences(html, "class=\"marker failed\""), 2);
  EXPECT_EQ(test::occurrences(html, "<section class=\"decision\""), 2);
  // The key that varied (mbs) as a column; the change under the trial number.
  EXPECT_NE(html.find("<tr data-trial=\"1\"><td class=\"num\">1<div class=\"change\">Run the "
                      "initial configuration.</div></td><td>1</td><td>stopped</td><td "
                      "class=\"num\">140.2</td><td class=\"num\">45.0</td><td "
                      "class=\"num\">61234</td><td>stable</td></tr>"),
            std::string::npos)
    << html;
}

TEST(MarkdownReport, TableRowsAndEscapes) {
  const auto md = render_markdown(report_of("s1", two_trial_history("a|b *c*")), {});
  EXPECT_EQ(md.rfind("# paratune report: a\\|b \\*c\\*\n", 0), 0u) << md;
  EXPECT_NE(md.find("| trial | mbs | status | TFLOP/s/GPU | MFU (%) | peak (MiB) | stop / "
                    "failure |\n"),
            std::string::npos)
    << md;
  EXPECT_NE(md.find("| 1<br>Run the initial configuration. | 1 | stopped | 140.2 | 45.0 | "
                    "61234 | stable |\n"),
            std::string::npos)
    << md;
  EXPECT_NE(md.find("| 2<br>Change MBS from 1 to 4. | 4 | failed | - | - | - | oom |\n"),
            std::string::npos);
  EXPECT_NE(md.find("- **Chosen because:** MBS \\| larger (health: PERFORMANCE\\_TUNE)\n"),
            std::string::npos);
  EXPECT_NE(md.find("> line &lt;two&gt;\n"), std::string::npos);
  EXPECT_NE(md.find("The charts are omitted on standard output"), std::string::npos);
  EXPECT_EQ(md.find(".svg"), std::string::npos);
  EXPECT_NE(md.find("- The job gives no token budget"), std::string::npos);
}

TEST(MarkdownReport, LinksTheChartFilesBesideIt) {
  const auto md = render_markdown(report_of("s1", two_trial_history("job")),
                                  {{{"MFU per trial", "my report.mfu.svg"},
                                    {"Predicted against measured throughput",
                                     "my report.throughput.svg"}}});
  EXPECT_NE(md.find("![MFU per trial](my%20report.mfu.svg)\n"), std::string::npos);
  EXPECT_NE(md.find("![Predicted against measured throughput](my%20report.throughput.svg)\n"),
            std::string::npos);
  EXPECT_EQ(md.find("omitted"), std::string::npos);
}

TEST(JsonReport, SummaryDecisionsAndChartPoints) {
  const auto j = report_json(report_of("s1", two_trial_history("job")));
  EXPECT_EQ(j["session"], "s1");
  EXPECT_EQ(j["job"]["name"], "job");
  EXPECT_EQ(j["job"]["world_size"], 8);
  ASSERT_EQ(j["trials"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["trials"][0]["tflops_per_gpu"].get<double>(), 140.25);
  ASSERT_EQ(j["decisions"].size(), 2u);
  EXPECT_EQ(j["decisions"][0]["stop"], "stable");
  EXPECT_DOUBLE_EQ(j["decisions"][0]["predicted_tflops"].get<double>(), 150);
  EXPECT_TRUE(j["decisions"][1]["predicted_tflops"].is_null());
  EXPECT_EQ(j["decisions"][1]["diagnosis"]["kind"], "oom");
  EXPECT_EQ(j["charts"]["mfu"]["failed"], nlohmann::json::array({2}));
  EXPECT_EQ(j["charts"]["mfu"]["measured"].size(), 1u);
  EXPECT_EQ(j["charts"]["throughput"]["points"].size(), 1u);
}

TEST(Reports, NoTrialsStillRender) {
  const auto history = std::vector<wire::envelope>{two_trial_history("job").front()};
  const auto r = report_of("s1", history);
  EXPECT_NE(render_markdown(r, {}).find("No trial ran."), std::string::npos);
  const auto html = render_html(r);
  EXPECT_NE(html.find(">no measured trial</text>"), std::string::npos);
  EXPECT_EQ(html.find(chart_colour::measured), std::string::npos);
}

} // namespace
} // namespace paratune
