// A real `paratune daemon`: its control operations, cancel, a graceful stop
// and a restart that continues, its HTTP side, its JSON logs, and the
// client commands against it.

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "daemon/curve_keys.hpp"
#include "messages/codec.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_service_fixture.hpp"
#include "tests/fixtures/local_http_server.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using control::control_op;

using test::daemon_service;
using test::job_text;

TEST_F(daemon_service, bad_requests_are_refused_in_words_and_the_daemon_lives_on) {
  test::daemon_process d{dir + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  auto bad_job = test::request_of(control_op::submit);
  bad_job.job_yaml = "name: x\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 0\n";
  bad_job.job_path = "team/job.yaml";
  const auto refused = d.call(bad_job);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("team/job.yaml"), std::string::npos) << refused.error;
  EXPECT_NE(refused.error.find("nodes"), std::string::npos) << refused.error;
  auto tpu = test::request_of(control_op::submit);
  tpu.job_yaml = "name: t\nhardware: {slice: v5p-128}\nmesh: {fsdp: 64}\n";
  tpu.job_path = "exp.yaml";
  // A TPU experiment is hosted too, once it reads: this one names no model.
  EXPECT_EQ(d.call(tpu).error, "exp.yaml: missing field 'model'");
  // An initial configuration Megatron-LM refuses: Megatron-LM's words, no session.
  auto tp3 = test::request_of(control_op::submit);
  tp3.job_yaml = "name: tp3\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 3\n"
                 "initial: {tp: 3, mbs: 1, gbs: 480, seq: 4096}\n";
  tp3.job_path = "tp3.yaml";
  EXPECT_EQ(d.call(tp3).error,
            "tp3.yaml: initial breaks Megatron-LM's rules on 24 devices:\n"
            "  [heads_tp] num_attention_heads (32) must be a multiple of "
            "tensor_model_parallel_size (3).\n"
            "  [query_groups_tp] num_query_groups (8) must be a multiple or divisor of "
            "tensor_model_parallel_size (3).");
  EXPECT_EQ(d.call(test::request_of(control_op::status, "s-nope")).error,
            "no session 's-nope' in the pool");
  EXPECT_EQ(d.call(test::request_of(control_op::cancel, "s-nope")).error,
            "no session 's-nope' in the pool");
  const auto health = d.call(test::request_of(control_op::health));
  EXPECT_TRUE(health.ok);
  EXPECT_EQ(health.version, "0.1.0");
  EXPECT_EQ(health.active_sessions, 0);
  EXPECT_EQ(health.pool_next_seq, 1u); // nothing was stored
  EXPECT_EQ(d.call(test::request_of(control_op::list)).sessions.size(), 0u);
}

TEST_F(daemon_service, a_cancelled_session_stops_its_trial_and_ends_cancelled) {
  test::daemon_process d{dir + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  const auto id = submit(d, job_text(6, 0.02)); // ~30 s per trial
  // Wait for its first trial to start.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (status(d, id).running == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(status(d, id).running, 1);
  const auto cancelled = cli({"cancel", id, "--daemon", d.control()});
  EXPECT_EQ(cancelled.status, 0) << cancelled.err;
  EXPECT_EQ(cancelled.out, "session " + id + " cancelled\n");
  const auto row = wait_end(d, id, std::chrono::seconds(30));
  EXPECT_EQ(row.state, "cancelled");
  EXPECT_EQ(row.text, "cancelled by a client");
  // The running trial was stopped, not left to run: its result says so.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const auto h = history(d, id);
  int results = 0;
  for (const auto& e : h)
    if (e.type == "trial_result") {
      ++results;
      const auto r = wire::body_of<wire::trial_result>(e);
      EXPECT_EQ(r.status, trial_status::stopped);
      EXPECT_EQ(r.stop, stop_reason::cancelled);
      EXPECT_EQ(r.reason, "the session was cancelled");
      EXPECT_EQ(r.tflops_per_gpu, 0.0); // its few iterations are not scored
    }
  EXPECT_EQ(results, 1);
  const auto again = cli({"cancel", id, "--daemon", d.control()});
  EXPECT_EQ(again.status, 2);
  EXPECT_EQ(again.err, "error: session '" + id + "' is not running: it ended cancelled\n");
}

TEST_F(daemon_service, sigterm_stops_in_order_and_the_next_start_finishes_the_session) {
  const auto state = dir + "/state";
  std::string id;
  {
    test::daemon_process d{state};
    ASSERT_TRUE(d.up()) << d.output();
    id = submit(d, job_text(3, 0.002)); // ~3 s per trial
    std::this_thread::sleep_for(std::chrono::seconds(2));
    EXPECT_EQ(d.stop(), 0);
    EXPECT_NE(d.output().find("daemon: stopped"), std::string::npos) << d.output();
  }
  test::daemon_process d{state};
  ASSERT_TRUE(d.up()) << d.output();
  EXPECT_NE(d.output().find("1 sessions resumed"), std::string::npos) << d.output();
  const auto row = wait_end(d, id);
  EXPECT_EQ(row.state, "finished");
  EXPECT_EQ(row.trials_done, 3);
  // `watch` of the ended session prints its three trials and the summary.
  const auto watched = cli({"watch", id, "--daemon", d.control()});
  EXPECT_EQ(watched.status, 0) << watched.err;
  EXPECT_NE(watched.out.find("trial  1/3"), std::string::npos) << watched.out;
  EXPECT_NE(watched.out.find("trial  3/3"), std::string::npos) << watched.out;
  EXPECT_NE(watched.out.find("session " + id + " finished after 3 trials of a budget of 3\n"), std::string::npos);
}

TEST_F(daemon_service, submit_list_and_watch_from_the_command_line_print_json_for_scripts) {
  test::daemon_process d{dir + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  const auto job = test::write_file(dir, "job.yaml", job_text(2, 0.0005));
  const auto submitted = cli({"submit", job, "--json", "--daemon", d.control()});
  ASSERT_EQ(submitted.status, 0) << submitted.err;
  const auto id = nlohmann::json::parse(submitted.out).at("session").get<std::string>();
  const auto watched = cli({"watch", id, "--json", "--daemon", d.control()});
  ASSERT_EQ(watched.status, 0) << watched.err;
  std::vector<nlohmann::json> events;
  std::istringstream lines{watched.out};
  for (std::string line; std::getline(lines, line);)
    events.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(events.size(), 3u) << watched.out;
  EXPECT_EQ(events[0].at("event"), "trial");
  EXPECT_EQ(events[0].at("trial"), 1);
  EXPECT_EQ(events[1].at("trial"), 2);
  EXPECT_EQ(events[2].at("event"), "end");
  EXPECT_EQ(events[2].at("state"), "finished");
  const auto listed = cli({"list", "--json", "--daemon", d.control()});
  ASSERT_EQ(listed.status, 0) << listed.err;
  const auto rows = nlohmann::json::parse(listed.out).at("sessions");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("id"), id);
  EXPECT_EQ(rows[0].at("state"), "finished");
  EXPECT_EQ(rows[0].at("trials_done"), 2);
  // The best trial `list` names is the one `watch` measured fastest.
  const double best = std::max(events[0].at("tflops_per_gpu").get<double>(),
                               events[1].at("tflops_per_gpu").get<double>());
  EXPECT_DOUBLE_EQ(rows[0].at("best_tflops_per_gpu").get<double>(), best);
  // report and export read the session through the daemon.
  const auto report = cli({"report", id, "--format", "json", "--daemon", d.control()});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_EQ(nlohmann::json::parse(report.out).at("trials").size(), 2u);
  const auto exported = cli({"export", id, "--format", "json", "--daemon", d.control()});
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_EQ(nlohmann::json::parse(exported.out).at("trial"), rows[0].at("best_trial"));
  // Or from the pool directory beside the running daemon: a read-only open
  // takes no lock and writes nothing.
  const auto beside = cli({"report", id, "--format", "json", "--db", dir + "/state/pool"});
  ASSERT_EQ(beside.status, 0) << beside.err;
  EXPECT_EQ(nlohmann::json::parse(beside.out).at("trials").size(), 2u);
}

TEST_F(daemon_service, a_client_with_no_daemon_says_so_and_a_bad_job_never_leaves_the_client) {
  const auto none = cli({"list", "--daemon", "tcp://127.0.0.1:1", "--timeout", "1"});
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.err, "error: bus failure: no answer from the daemon at tcp://127.0.0.1:1 "
                      "within 1000 ms\n");
  const auto job = test::write_file(dir, "bad.yaml", "name: x\nmodel: llama3-8b\n");
  const auto bad = cli({"submit", job, "--daemon", "tcp://127.0.0.1:1", "--timeout", "1"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find(job), std::string::npos) << bad.err;
}

TEST_F(daemon_service, metrics_and_health_over_http_and_json_logs) {
  test::daemon_process d{dir + "/state", {"--http", "127.0.0.1:*", "--log-format", "json"}};
  ASSERT_TRUE(d.up()) << d.output();
  const auto id = submit(d, job_text(2, 0.0005));
  EXPECT_EQ(wait_end(d, id).state, "finished");
  const auto colon = d.http().rfind(':');
  httplib::Client http{"127.0.0.1", std::stoi(d.http().substr(colon + 1))};
  const auto metrics = http.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  const auto& m = metrics->body;
  EXPECT_NE(m.find("paratune_sessions{state=\"finished\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("paratune_sessions_active 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("paratune_trials{state=\"running\"} 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("paratune_control_requests_total{op=\"submit\",outcome=\"ok\"} 1\n"),
            std::string::npos) << m;
  EXPECT_NE(m.find("paratune_control_request_seconds_count "), std::string::npos) << m;
  EXPECT_NE(m.find("paratune_pool_records_total "), std::string::npos) << m;
  EXPECT_EQ(m.find("paratune_bus_messages_total 0\n"), std::string::npos) << m; // it counted
  EXPECT_NE(m.find("paratune_bus_messages_total "), std::string::npos) << m;
  // The dashboard's own connections: this scrape's is open, none shed.
  EXPECT_NE(m.find("paratune_http_connections 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("paratune_http_connections_shed_total{reason=\"deadline\"} 0\n"),
            std::string::npos) << m;
  EXPECT_NE(m.find("paratune_http_connections_max 1024\n"), std::string::npos) << m;
  const auto health = http.Get("/health");
  ASSERT_TRUE(health);
  const auto h = nlohmann::json::parse(health->body);
  EXPECT_EQ(h.at("status"), "ok");
  EXPECT_EQ(h.at("control"), d.control());
  // The dashboard beside them is read-only.
  EXPECT_EQ(http.Post("/metrics", "x", "text/plain")->status, 405);
  // Every log line is one JSON object.
  d.stop();
  int json_lines = 0;
  std::istringstream lines{d.output()};
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("paratune daemon:", 0) == 0)
      continue; // the one line on stdout for whoever started it
    const auto j = nlohmann::json::parse(line);
    EXPECT_TRUE(j.contains("ts") && j.contains("level") && j.contains("msg")) << line;
    ++json_lines;
  }
  EXPECT_GE(json_lines, 4);
  EXPECT_NE(d.output().find("\"msg\":\"daemon: session " + id + " ended finished\""),
            std::string::npos);
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

TEST_F(daemon_service, keygen_writes_a_private_secret_key_and_never_overwrites_one) {
  const auto made = cli({"keygen", "--out", dir});
  ASSERT_EQ(made.status, 0) << made.err;
  namespace fs = std::filesystem;
  const auto secret = dir + "/paratune-daemon.key", pub = dir + "/paratune-daemon.pub";
  EXPECT_EQ(fs::status(secret).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  const auto keys = read_curve_key_file(secret);
  EXPECT_EQ(keys.public_key.size(), 40u);
  EXPECT_EQ(keys.secret_key.size(), 40u);
  EXPECT_EQ(read_curve_key_file(pub).public_key, keys.public_key);
  EXPECT_EQ(read_curve_key_file(pub).secret_key, "");
  // Never overwritten.
  const auto again = cli({"keygen", "--out", dir});
  EXPECT_EQ(again.status, 2);
  EXPECT_EQ(read_curve_key_file(secret).secret_key, keys.secret_key);
  ASSERT_EQ(cli({"keygen", "--out", dir, "--name", "other"}).status, 0);

  // Which clients the daemon hears over TCP: control_access_test.
}

TEST_F(daemon_service, a_tcp_control_endpoint_needs_curve_a_client_list_and_a_secret_key) {
  const auto open = cli({"daemon", "--state", dir + "/s", "--control", "tcp://0.0.0.0:7710",
                         "--allow-remote", "--http", "off"});
  EXPECT_EQ(open.status, 2);
  EXPECT_EQ(open.err, "error: control: 'tcp://0.0.0.0:7710' is TCP, which needs curve_key and "
                      "authorized_keys: over TCP only CURVE clients whose public key is listed "
                      "are heard (paratune keygen; paratune keygen --client for each client)\n");
  ASSERT_EQ(cli({"keygen", "--out", dir}).status, 0);
  std::filesystem::create_directories(dir + "/clients");
  const auto pub_only = cli({"daemon", "--state", dir + "/s", "--control", "tcp://127.0.0.1:*",
                             "--bus-publish", "tcp://127.0.0.1:*", "--bus-subscribe",
                             "tcp://127.0.0.1:*", "--http", "off", "--curve-key",
                             dir + "/paratune-daemon.pub", "--authorized-keys",
                             dir + "/clients"});
  EXPECT_EQ(pub_only.status, 1);
  EXPECT_NE(pub_only.err.find("a public key file; the daemon needs the .key file"),
            std::string::npos) << pub_only.err;
  std::filesystem::permissions(dir + "/paratune-daemon.key", std::filesystem::perms::others_read,
                               std::filesystem::perm_options::add);
  try {
    read_curve_key_file(dir + "/paratune-daemon.key");
    FAIL() << "a world-readable secret key was read";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), dir + "/paratune-daemon.key: a secret key file must not be "
                                           "readable by others (chmod 600)");
  }
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

TEST_F(daemon_service, the_configs_reasoner_serves_jobs_without_one_and_its_key_is_never_logged) {
  constexpr const char* key_variable = "PARATUNE_DAEMON_LLM_KEY";
  constexpr const char* secret = "sk-daemon-7f3e-never-logged";
  setenv(key_variable, secret, 1);
  // The server answers every ask with a 400 whose body repeats the
  // request's headers, the Authorization one among them.
  test::local_http_server server(
    "chat_server.py", {test::write_file(dir, "script.jsonl", R"({"echo_request": true})" "\n"),
                       dir + "/requests.jsonl"});
  const auto config = test::write_file(
    dir, "daemon.yaml",
    "reasoner: {mode: llm, base_url: \"" + server.url() + "/v1\", model: qwen2.5-7b-instruct, "
    "api_key_env: " + key_variable + ", timeout_s: 5, max_retries: 0}\n");
  test::daemon_process d{dir + "/state", {"--config", config, "--log-format", "json"}};
  ASSERT_TRUE(d.up()) << d.output();
  const auto id = submit(d, job_text(3, 0.0005));
  EXPECT_EQ(wait_end(d, id).state, "finished");
  const auto records = history(d, id);
  int asks = 0;
  for (const auto& e : records) {
    EXPECT_EQ(e.body.find(secret), std::string::npos) << e.type;
    if (e.type != wire::type_name<wire::llm_exchange>())
      continue;
    ++asks;
    const auto x = wire::body_of<wire::llm_exchange>(e);
    EXPECT_NE(x.error.find("[redacted]"), std::string::npos) << x.error;
  }
  EXPECT_EQ(asks, 2);  // trials 2 and 3; trial 1 runs the initial configuration
  const auto report = cli({"report", id, "--daemon", d.control()});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_EQ(report.out.find(secret), std::string::npos);
  d.stop();
  // The JSON log says why the model's choice did not stand, without the key.
  const auto log = d.output();
  EXPECT_NE(log.find("\"level\":\"warning\""), std::string::npos) << log;
  EXPECT_NE(log.find("strategy generation: job service-test after trial 1: the model did not "
                     "answer (rejected: "),
            std::string::npos) << log;
  EXPECT_NE(log.find("[redacted]"), std::string::npos) << log;
  EXPECT_EQ(log.find(secret), std::string::npos);
  unsetenv(key_variable);
}

} // namespace
} // namespace paratune
