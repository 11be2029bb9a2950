// The dashboard over a real RocksDB pool filled from the wire types,
// fetched with httplib's client: what each route answers, that it never
// writes, and that every string from the pool reaches a page as text.

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <regex>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "dashboard/dashboard_server.hpp"
#include "report/svg_canvas.hpp"
#include "messages/ec.hpp"
#include "report/session_summary.hpp"
#include "tests/dashboard/built_session.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct dashboard_test : ::testing::Test {
  void SetUp() override {
    dir = test::make_temp_dir("dashboard");
    auto opened = message_pool::open(dir + "/pool");
    ASSERT_TRUE(opened) << describe(opened.error());
    pool = std::move(*opened);
    // Byte order and age disagree: the list must go by age.
    test::write_built_session(*pool, "s-older", "older-job", 1'764'000'000'000);
    test::write_built_session(*pool, "s-built", test::hostile_job, 1'764'000'100'000);
    // A diagnosis request is a session of the pool, but not a tuning one.
    test::put(*pool, "diag-1", 0, wire::diagnose_request{});
  }
  void TearDown() override {
    server.reset();
    pool.reset();
    fs::remove_all(dir);
  }

  dashboard_server& start(dashboard_options options = {}) {
    server = std::make_unique<dashboard_server>(pool, std::move(options));
    auto started = server->start();
    EXPECT_TRUE(started) << describe(started.error());
    return *server;
  }

  httplib::Client client() const { return httplib::Client("127.0.0.1", server->port()); }

  nlohmann::json get_json(const std::string& path) {
    auto cli = client();
    auto res = cli.Get(path.c_str());
    EXPECT_TRUE(res);
    EXPECT_EQ(res->status, 200) << path << ": " << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
    return nlohmann::json::parse(res->body);
  }

  std::string dir;
  std::shared_ptr<message_pool> pool;
  std::unique_ptr<dashboard_server> server;
};

TEST_F(dashboard_test, a_sessions_json_is_its_summary_with_diagnoses_errors_and_reasoning) {
  start();
  const auto j = get_json("/api/sessions/s-built");
  const auto expected = to_json(summarize("s-built", *pool->session_history("s-built")));
  for (const auto& [key, value] : expected.items()) {
    if (key != "trials") {
      EXPECT_EQ(j[key], value) << key;
    }
  }
  ASSERT_EQ(j["trials"].size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    for (const auto& [key, value] : expected["trials"][i].items())
      EXPECT_EQ(j["trials"][i][key], value) << "trial " << i + 1 << " " << key;

  EXPECT_EQ(j["state"], "finished");
  EXPECT_EQ(j["best"]["trial"], 3);
  EXPECT_EQ(j["best"]["tflops_per_gpu"], 210.5);
  EXPECT_EQ(j["trials"][0]["tflops_per_gpu"], 150.25);
  EXPECT_EQ(j["trials"][0]["mfu"], 0.4816);
  EXPECT_EQ(j["trials"][0]["peak_memory_mib"], 61234);
  EXPECT_EQ(j["trials"][0]["reasoning"], "the pool is empty");
  EXPECT_FALSE(j["trials"][0].contains("diagnosis"));
  EXPECT_EQ(j["trials"][1]["status"], "failed");
  EXPECT_EQ(j["trials"][1]["failure"], "oom");
  EXPECT_EQ(j["trials"][1]["diagnosis"]["summary"],
            "MBS 4 caused CUDA OutOfMemoryError (Confidence: 92)");
  EXPECT_EQ(j["trials"][1]["diagnosis"]["kind"], "oom");
  EXPECT_EQ(j["trials"][1]["diagnosis"]["confidence"], 92);
  EXPECT_EQ(j["trials"][1]["error"], "torch.OutOfMemoryError: CUDA out of memory <GPU 0>");
  EXPECT_EQ(j["trials"][1]["reasoning"], "memory headroom & <b>more</b>");
  EXPECT_EQ(j["job"]["name"], test::hostile_job); // JSON-escaped, read back exactly
  EXPECT_EQ(j["job"]["model"], "llama3-8b");
  EXPECT_EQ(j["job"]["cluster"], "dgx-a100-80g");
  EXPECT_EQ(j["job"]["world_size"], 8);
  EXPECT_EQ(j["job"]["trials"], 3);
  EXPECT_EQ(j["running"], nlohmann::json::array());
}

TEST_F(dashboard_test, a_trial_started_without_its_result_is_listed_as_running) {
  test::put(*pool, "s-live", 0, test::built_job("live", 4));
  test::put(*pool, "s-live", 1, test::built_proposal(1, "Run the initial configuration.", "r"));
  test::put(*pool, "s-live", 1, wire::trial_started{1, {{"tp", "1"}}, {}, "sim"});
  start();
  const auto j = get_json("/api/sessions/s-live");
  EXPECT_EQ(j["state"], "running");
  EXPECT_EQ(j["trials"].size(), 0u);
  ASSERT_EQ(j["running"].size(), 1u);
  EXPECT_EQ(j["running"][0]["index"], 1);
  EXPECT_EQ(j["running"][0]["change"], "Run the initial configuration.");
  EXPECT_EQ(j["running"][0]["pool"], "sim");

  // The next poll sees what was appended since the last one.
  test::put(*pool, "s-live", 1, test::built_success(1, 123.5, 0.4, 50000));
  const auto after = get_json("/api/sessions/s-live");
  EXPECT_EQ(after["running"].size(), 0u);
  ASSERT_EQ(after["trials"].size(), 1u);
  EXPECT_EQ(after["trials"][0]["tflops_per_gpu"], 123.5);
}

TEST_F(dashboard_test, the_sessions_are_listed_newest_first_and_only_tuning_sessions) {
  start();
  const auto j = get_json("/api/sessions");
  ASSERT_EQ(j["sessions"].size(), 2u); // diag-1 is not a tuning session
  EXPECT_EQ(j["sessions"][0]["session"], "s-built");
  EXPECT_EQ(j["sessions"][1]["session"], "s-older");
  const auto& s = j["sessions"][0];
  EXPECT_EQ(s["job"], test::hostile_job);
  EXPECT_EQ(s["model"], "llama3-8b");
  EXPECT_EQ(s["cluster"], "dgx-a100-80g");
  EXPECT_EQ(s["state"], "finished");
  EXPECT_EQ(s["trials_done"], 3);
  EXPECT_EQ(s["trials_budget"], 3);
  EXPECT_EQ(s["best"]["trial"], 3);
  EXPECT_EQ(s["best"]["tflops_per_gpu"], 210.5);
  EXPECT_EQ(s["best"]["mfu"], 0.6747);
}

wire::tpu_trial_row tpu_run_row(int trial, const std::string& mesh, double step_ms,
                                int64_t ended_ms) {
  wire::tpu_trial_row r;
  r.trial = trial;
  r.mesh = mesh;
  r.step_time_ms = step_ms;
  r.pool = "v6e";
  r.started_ms = 1'764'000'300'000 + trial;
  r.ended_ms = ended_ms;
  return r;
}

TEST_F(dashboard_test, a_tpu_session_has_its_row_its_page_and_its_json_while_it_runs) {
  wire::tpu_session_opened job;
  job.experiment_name = "<b>v6e-16</b>";
  job.model = "llama3-8b";
  job.hardware = "tpu-v6e 4x4";
  job.budget = 4;
  auto opened = wire::make_envelope("tpu-1", 0, job);
  opened.ts_ms = 1'764'000'200'000; // between the two GPU sessions
  ASSERT_TRUE(pool->append(opened));
  test::put(*pool, "tpu-1", 0, tpu_run_row(1, "data=4,model=4", 812.5, 1'764'000'310'000));
  auto failed = tpu_run_row(2, "data=16", 0, 1'764'000'320'000);
  failed.error = "out of memory: RESOURCE_EXHAUSTED <hbm>";
  test::put(*pool, "tpu-1", 0, failed);
  test::put(*pool, "tpu-1", 0, tpu_run_row(3, "fsdp=16", 640.25, 1'764'000'330'000));
  test::put(*pool, "tpu-1", 0, tpu_run_row(4, "fsdp=8,model=2", 0, 0)); // running
  start();

  const auto list = get_json("/api/sessions");
  ASSERT_EQ(list["sessions"].size(), 2u);
  ASSERT_EQ(list["tpu_sessions"].size(), 1u);
  const auto& line = list["tpu_sessions"][0];
  EXPECT_EQ(line["session"], "tpu-1");
  EXPECT_EQ(line["job"], "<b>v6e-16</b>");
  EXPECT_EQ(line["hardware"], "tpu-v6e 4x4");
  EXPECT_EQ(line["state"], "running");
  EXPECT_EQ(line["runs_done"], 4);
  EXPECT_EQ(line["runs_budget"], 4);
  EXPECT_EQ(line["best"]["trial"], 3);
  EXPECT_EQ(line["best"]["mesh"], "fsdp=16");
  EXPECT_EQ(line["best"]["step_time_ms"], 640.25);

  const auto j = get_json("/api/sessions/tpu-1");
  EXPECT_EQ(j["kind"], "tpu");
  EXPECT_EQ(j["state"], "running");
  ASSERT_EQ(j["trials"].size(), 4u);
  EXPECT_EQ(j["trials"][1]["error"], "out of memory: RESOURCE_EXHAUSTED <hbm>");
  EXPECT_EQ(j["trials"][3]["ended_ms"], 0);
  EXPECT_EQ(j["best"]["trial"], 3);
  EXPECT_NEAR(j["best"]["speedup"].get<double>(), 812.5 / 640.25, 1e-9);
  EXPECT_EQ(j["job"]["budget"], 4);

  auto cli = client();
  auto index = cli.Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_NE(index->body.find("<table id=\"tpu-sessions\">"), std::string::npos);
  EXPECT_NE(index->body.find("<a href=\"/session/tpu-1\">tpu-1</a>"), std::string::npos);
  EXPECT_NE(index->body.find("&lt;b&gt;v6e-16&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(index->body.find("<b>v6e-16</b>"), std::string::npos);

  auto page = cli.Get("/session/tpu-1");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  const auto& html = page->body;
  EXPECT_NE(html.find("<dd id=\"state\">running</dd>"), std::string::npos) << html;
  EXPECT_NE(html.find("<dd id=\"done\">4/4</dd>"), std::string::npos) << html;
  EXPECT_NE(html.find("<dd id=\"best\">640.2 ms per step, mesh fsdp=16 (trial 3)</dd>"),
            std::string::npos) << html;
  EXPECT_NE(html.find("<td class=\"num\">running</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("failed: out of memory: RESOURCE_EXHAUSTED &lt;hbm&gt;"), std::string::npos);
  // Running: its one script, with the page's nonce, loads it again.
  EXPECT_NE(html.find("location.reload()"), std::string::npos);

  // The GPU session's chart and panels are not a TPU session's.
  auto chart = cli.Get("/api/sessions/tpu-1/mfu.svg");
  ASSERT_TRUE(chart);
  EXPECT_EQ(chart->status, 404);
  EXPECT_EQ(chart->body, "session tpu-1 is a TPU session: it has no MFU chart\n");

  // Once its end is stored, the page says so and stops reloading.
  wire::tpu_session_end end;
  end.state = session_state::finished;
  for (const auto& t : j["trials"])
    end.trials.push_back(tpu_run_row(t["trial"], t["mesh"], t["step_time_ms"], 1'764'000'340'000));
  end.trials[1].error = failed.error;
  end.trials[3].step_time_ms = 700;
  end.best_trial = 3;
  test::put(*pool, "tpu-1", 0, end);
  const auto ended = get_json("/api/sessions/tpu-1");
  EXPECT_EQ(ended["state"], "finished");
  EXPECT_EQ(ended["trials"][3]["step_time_ms"], 700.0);
  auto ended_page = cli.Get("/session/tpu-1");
  ASSERT_TRUE(ended_page);
  EXPECT_NE(ended_page->body.find("<dd id=\"state\">finished</dd>"), std::string::npos);
  EXPECT_EQ(ended_page->body.find("location.reload()"), std::string::npos);
}

TEST_F(dashboard_test, the_list_is_cut_at_max_sessions) {
  dashboard_options options;
  options.max_sessions = 1;
  start(options);
  const auto j = get_json("/api/sessions");
  ASSERT_EQ(j["sessions"].size(), 1u);
  EXPECT_EQ(j["sessions"][0]["session"], "s-built");
}

TEST_F(dashboard_test, every_method_but_get_and_head_is_refused_and_writes_nothing) {
  start();
  const auto records_before = pool->next_seq();
  auto cli = client();
  for (const std::string path : {"/", "/api/sessions", "/api/sessions/s-built",
                                 "/session/s-built", "/api/sessions/s-built/mfu.svg",
                                 "/api/sessions/s-built/panels"}) {
    SCOPED_TRACE(path);
    const std::string body = R"({"state":"failed"})";
    auto post = cli.Post(path.c_str(), body, "application/json");
    auto put = cli.Put(path.c_str(), body, "application/json");
    auto del = cli.Delete(path.c_str());
    auto patch = cli.Patch(path.c_str(), body, "application/json");
    auto options = cli.Options(path.c_str());
    for (auto* res : {&post, &put, &del, &patch, &options}) {
      ASSERT_TRUE(*res);
      EXPECT_EQ((*res)->status, 405);
      EXPECT_EQ((*res)->get_header_value("Allow"), "GET, HEAD");
    }
  }
  EXPECT_EQ(pool->next_seq(), records_before);
  EXPECT_EQ(pool->session_history("s-built")->size(), 12u);
  EXPECT_EQ(get_json("/api/sessions/s-built")["state"], "finished");
}

TEST_F(dashboard_test, head_answers_like_get_without_a_body) {
  start();
  auto cli = client();
  auto res = cli.Head("/api/sessions/s-built");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body, "");
}

TEST_F(dashboard_test, a_bad_session_id_is_400_and_an_unknown_one_404) {
  start();
  auto cli = client();
  const std::string long_id(129, 'a');
  for (const std::string prefix : {"/session/", "/api/sessions/"}) {
    for (const std::string& bad : std::vector<std::string>{"a%20b", "%3Cscript%3E", "a;b", long_id, ""}) {
      auto res = cli.Get((prefix + bad).c_str());
      ASSERT_TRUE(res);
      EXPECT_EQ(res->status, 400) << prefix << bad;
      EXPECT_NE(res->body.find("bad session id"), std::string::npos) << res->body;
    }
    auto unknown = cli.Get((prefix + "s-nowhere").c_str());
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->status, 404);
    EXPECT_EQ(unknown->body, "no tuning session s-nowhere in the pool\n");
    auto not_tuning = cli.Get((prefix + "diag-1").c_str());
    EXPECT_EQ(not_tuning->status, 404);
  }
  EXPECT_EQ(cli.Get("/api/sessions/a%20b/mfu.svg")->status, 400);
  EXPECT_EQ(cli.Get("/api/sessions/s-nowhere/mfu.svg")->status, 404);
  EXPECT_EQ(cli.Get("/session/s-built/extra")->status, 404);
  EXPECT_EQ(cli.Get("/nowhere")->status, 404);
}

TEST_F(dashboard_test, a_record_that_does_not_decode_is_a_500_with_a_short_message) {
  wire::envelope broken = wire::make_envelope("s-built", 4, wire::trial_result{});
  broken.body = "\xc1"; // a byte msgpack never uses
  ASSERT_TRUE(pool->append(broken));
  start();
  auto cli = client();
  for (const std::string path : {"/api/sessions/s-built", "/session/s-built",
                                 "/api/sessions/s-built/mfu.svg", "/api/sessions", "/"}) {
    auto res = cli.Get(path.c_str());
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 500) << path;
    // The ledger names the record: "session s-built: record 26 (trial_result): cannot decode
    // trial_result: ...".
    EXPECT_NE(res->body.find("session s-built: record "), std::string::npos) << res->body;
    EXPECT_NE(res->body.find(" (trial_result): cannot decode trial_result"), std::string::npos)
      << res->body;
    EXPECT_LT(res->body.size(), 400u);
  }
}

TEST_F(dashboard_test, strings_from_the_pool_show_as_text_on_the_pages) {
  start();
  auto cli = client();
  for (const std::string path : {"/", "/session/s-built"}) {
    auto res = cli.Get(path.c_str());
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
    EXPECT_NE(res->body.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << path;
    EXPECT_EQ(res->body.find("<script>alert(1)"), std::string::npos) << path;
    // Nothing from elsewhere (no CDN): the only URL is the SVG namespace's name.
    const auto page =
      std::regex_replace(res->body, std::regex(R"(xmlns="http://www\.w3\.org/2000/svg")"), "");
    EXPECT_EQ(page.find("http://"), std::string::npos) << path;
    EXPECT_EQ(page.find("https://"), std::string::npos) << path;
    EXPECT_EQ(page.find(" src="), std::string::npos) << path; // the script and style are inline
  }
  const auto list = cli.Get("/")->body;
  EXPECT_NE(list.find("<a href=\"/session/s-built\">s-built</a>"), std::string::npos);
  EXPECT_NE(list.find("<td class=\"number\">210.5</td><td class=\"number\">67.5</td>"),
            std::string::npos);
}

TEST_F(dashboard_test, pages_run_only_their_own_inline_script_and_style) {
  start();
  auto cli = client();
  auto page = cli.Get("/session/s-built");
  ASSERT_TRUE(page);
  const auto policy = page->get_header_value("Content-Security-Policy");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(policy, m, std::regex("script-src 'nonce-([0-9a-f]{32})'")))
    << policy;
  const auto nonce = m[1].str();
  EXPECT_NE(policy.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(policy.find("connect-src 'self'"), std::string::npos);
  EXPECT_NE(policy.find("style-src 'nonce-" + nonce + "'"), std::string::npos);
  EXPECT_NE(page->body.find("<script nonce=\"" + nonce + "\">"), std::string::npos);
  EXPECT_NE(page->body.find("<style nonce=\"" + nonce + "\">"), std::string::npos);
  EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  // Another load, another nonce.
  EXPECT_NE(cli.Get("/session/s-built")->get_header_value("Content-Security-Policy"), policy);
  for (const std::string path : {"/api/sessions", "/api/sessions/s-built/mfu.svg", "/nowhere"}) {
    auto res = cli.Get(path.c_str());
    EXPECT_EQ(res->get_header_value("Content-Security-Policy"),
              "default-src 'none'; frame-ancestors 'none'") << path;
    EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff") << path;
  }
}

TEST_F(dashboard_test, the_chart_has_a_point_per_measured_trial_and_a_failure_marker) {
  start();
  auto cli = client();
  auto res = cli.Get("/api/sessions/s-built/mfu.svg");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "image/svg+xml");
  const auto& svg = res->body;
  const std::regex point("class=\"point measured\" data-trial=\"(\\d)\"");
  std::vector<std::string> trials;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), point); it != std::sregex_iterator();
       ++it)
    trials.push_back((*it)[1]);
  EXPECT_EQ(trials, (std::vector<std::string>{"1", "3"}));
  EXPECT_NE(svg.find("class=\"marker failed\" data-trial=\"2\""), std::string::npos);
  // The page carries the same chart from its first byte, inline in HTML.
  EXPECT_NE(cli.Get("/session/s-built")->body.find(inline_svg(svg)), std::string::npos);
}

TEST_F(dashboard_test, the_panels_are_the_answer_and_the_reports_charts) {
  start();
  auto cli = client();
  auto res = cli.Get("/api/sessions/s-built/panels");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  const auto& html = res->body;
  EXPECT_EQ(html.rfind("<section id=\"answer\"", 0), 0u) << html;
  for (const char* id : {"trials-chart", "mfu-chart", "parallel-chart", "memory-chart",
                         "throughput-chart", "importance-chart"})
    EXPECT_NE(html.find("<svg id=\"" + std::string(id) + "\""), std::string::npos) << id;
  EXPECT_EQ(html.find("live-chart"), std::string::npos);  // the session ended: nothing runs
  EXPECT_EQ(cli.Get("/api/sessions/s-nowhere/panels")->status, 404);
  // The page opens with the same panels.
  EXPECT_NE(cli.Get("/session/s-built")->body.find(html), std::string::npos);
}

TEST_F(dashboard_test, an_added_route_is_served_as_given) {
  server = std::make_unique<dashboard_server>(pool);
  int calls = 0;
  ASSERT_TRUE(server->add_get("/metrics", "text/plain; version=0.0.4", [&calls] {
    ++calls;
    return "paratune_sessions " + std::to_string(calls) + "\n";
  }));
  ASSERT_TRUE(server->add_get("/health", "application/json", [] { return R"({"ok":true})"; }));
  EXPECT_FALSE(server->add_get("metrics", "text/plain", [] { return ""; }));
  ASSERT_TRUE(server->start());
  auto cli = client();
  auto metrics = cli.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(metrics->body, "paratune_sessions 1\n");
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4");
  EXPECT_EQ(cli.Get("/health")->body, R"({"ok":true})");
  EXPECT_EQ(cli.Get("/metricsX")->status, 404);   // matched exactly, not as a pattern
  EXPECT_EQ(cli.Post("/metrics", "", "text/plain")->status, 405);
  const auto late = server->add_get("/late", "text/plain", [] { return "late"; });
  ASSERT_FALSE(late);
  EXPECT_NE(describe(late.error()).find("already serving"), std::string::npos);
}

TEST_F(dashboard_test, a_port_in_use_is_an_error_naming_the_address) {
  auto& first = start();
  dashboard_options options;
  options.port = first.port();
  dashboard_server second(pool, options);
  const auto started = second.start();
  ASSERT_FALSE(started);
  const auto text = describe(started.error());
  EXPECT_NE(text.find("cannot listen on 127.0.0.1:" + std::to_string(first.port())),
            std::string::npos) << text;
  EXPECT_EQ(second.port(), 0);
}

TEST_F(dashboard_test, stop_ends_serving_and_the_port_is_free_again) {
  auto& s = start();
  const int port = s.port();
  EXPECT_GT(port, 0);
  s.stop();
  s.stop(); // a second stop does nothing
  httplib::Client cli("127.0.0.1", port);
  EXPECT_FALSE(cli.Get("/api/sessions"));
  dashboard_options options;
  options.port = port;
  dashboard_server again(pool, options);
  EXPECT_TRUE(again.start());
  EXPECT_EQ(again.port(), port);
}

TEST_F(dashboard_test, an_access_log_sees_each_answer) {
  std::mutex m;
  std::vector<std::string> lines;
  dashboard_options options;
  options.on_request = [&](const dashboard_request& r) {
    std::lock_guard<std::mutex> g{m};
    lines.push_back(r.method + " " + r.path + " " + std::to_string(r.status));
  };
  start(options);
  auto cli = client();
  cli.Get("/api/sessions/s-built");
  cli.Delete("/api/sessions/s-built");
  cli.Get("/session/a%20b");
  // The log runs once the answer was sent, so it may trail the client.
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard<std::mutex> g{m};
      if (lines.size() >= 3)
        break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::lock_guard<std::mutex> g{m};
  std::sort(lines.begin(), lines.end()); // connections are served in parallel
  EXPECT_EQ(lines, (std::vector<std::string>{"DELETE /api/sessions/s-built 405",
                                             "GET /api/sessions/s-built 200",
                                             "GET /session/a b 400"}));
}

TEST_F(dashboard_test, with_a_token_every_request_must_carry_it) {
  dashboard_options options;
  options.token = "s3cret-token-0123456789";
  start(options);
  auto cli = client();
  const auto bare = cli.Get("/api/sessions");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->status, 401);
  EXPECT_EQ(bare->get_header_value("WWW-Authenticate"), "Bearer");
  EXPECT_EQ(bare->body, "this dashboard needs its token (Authorization: Bearer TOKEN)\n");
  EXPECT_EQ(cli.Get("/api/sessions", {{"Authorization", "Bearer s3cret-token-012345678"}})->status,
            401);
  EXPECT_EQ(cli.Get("/api/sessions", {{"Authorization", "Bearer s3cret-token-0123456789"}})->status,
            200);
  EXPECT_EQ(cli.Get("/session/s-built?token=s3cret-token-0123456789")->status, 200);
  // The token opens reading, never writing.
  EXPECT_EQ(cli.Post("/api/sessions?token=s3cret-token-0123456789", "x", "text/plain")->status,
            405);
}

TEST_F(dashboard_test, idle_connections_do_not_hold_health_back) {
  start();
  // 200 connections that never send a request: each holds a thread for the
  // keep-alive timeout at most, not a worker the next client waits for.
  std::vector<int> idle;
  for (int i = 0; i < 200; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(uint16_t(server->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    idle.push_back(fd);
  }
  auto cli = client();
  cli.set_connection_timeout(3);
  cli.set_read_timeout(3);
  const auto res = cli.Get("/api/sessions");
  ASSERT_TRUE(res) << "no answer within 3 s beside 200 idle connections";
  EXPECT_EQ(res->status, 200);
  for (int fd : idle)
    ::close(fd);
}

} // namespace
} // namespace paratune
