// The slurmrestd v0.0.38 JSON readers and the submission body, on answers
// recorded from a real slurmrestd 22.05 (tests/fixtures/slurm/) and on
// hostile ones.
#include "adapters/slurm/slurmrestd_json.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include "tests/slurm/slurm_fixtures.hpp"

namespace paratune {
namespace {

using test::slurm_http_fixture;

slurm_job_id id_in(const test::recorded_http& r) {
  auto j = nlohmann::json::parse(r.body);
  return j["jobs"][0]["job_id"].get<slurm_job_id>();
}

TEST(slurmrestd_submit, reads_the_recorded_job_id) {
  auto r = slurm_http_fixture("rest_submit.json");
  EXPECT_EQ(r.status, 200);
  auto id = parse_slurmrestd_submit(r.status, r.body);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_GT(id.value(), 0u);
}

TEST(slurmrestd_submit, an_unknown_partition_is_refused_with_slurms_reason) {
  auto r = slurm_http_fixture("rest_submit_invalid_partition.json");
  EXPECT_EQ(r.status, 500);
  auto id = parse_slurmrestd_submit(r.status, r.body);
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error().kind, slurm_failure::refused);
  EXPECT_EQ(id.error().message, "Invalid partition name specified");
}

TEST(slurmrestd_job, reads_running_failed_and_cancelled_jobs) {
  auto running = slurm_http_fixture("rest_job_running.json");
  auto s = parse_slurmrestd_job(running.status, running.body, id_in(running));
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s.value().state, slurm_state::running);
  EXPECT_EQ(s.value().partition, "h100");
  EXPECT_FALSE(s.value().nodes.empty());
  EXPECT_FALSE(s.value().exit_code);

  auto failed = slurm_http_fixture("rest_job_failed_exit3.json");
  auto f = parse_slurmrestd_job(failed.status, failed.body, id_in(failed));
  ASSERT_TRUE(f) << f.error().message;
  EXPECT_EQ(f.value().state, slurm_state::failed);
  EXPECT_EQ(f.value().exit_code, 3);  // recorded as the wait status 768
  EXPECT_EQ(f.value().reason, "NonZeroExitCode");
  EXPECT_EQ(f.value().name, "rest fail");

  auto cancelled = slurm_http_fixture("rest_job_cancelled.json");
  auto c = parse_slurmrestd_job(cancelled.status, cancelled.body, id_in(cancelled));
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c.value().state, slurm_state::cancelled);
  EXPECT_EQ(c.value().signal, 15);
  EXPECT_FALSE(c.value().exit_code);
}

TEST(slurmrestd_job, an_unknown_job_is_not_found) {
  auto r = slurm_http_fixture("rest_job_unknown.json");
  auto s = parse_slurmrestd_job(r.status, r.body, 999999);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, slurm_failure::not_found);
  EXPECT_NE(s.error().message.find("Invalid job id specified"), std::string::npos);
  // An answer about other jobs only is not an answer about this one.
  auto running = slurm_http_fixture("rest_job_running.json");
  auto other = parse_slurmrestd_job(running.status, running.body, id_in(running) + 1000);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().kind, slurm_failure::not_found);
}

TEST(slurmrestd_job, a_controller_that_is_down_is_unreachable) {
  auto r = slurm_http_fixture("rest_job_controller_down.json");
  auto s = parse_slurmrestd_job(r.status, r.body, 4);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, slurm_failure::unreachable);
  auto p = slurm_http_fixture("rest_ping_controller_down.json");
  auto ping = parse_slurmrestd_ping(p.status, p.body);
  ASSERT_FALSE(ping);
  EXPECT_EQ(ping.error().kind, slurm_failure::unreachable);
}

TEST(slurmrestd_ping, reads_up) {
  auto r = slurm_http_fixture("rest_ping.json");
  auto p = parse_slurmrestd_ping(r.status, r.body);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p.value().up);
  EXPECT_FALSE(p.value().controller.empty());
}

TEST(slurmrestd_cancel, reads_success_and_an_unknown_job) {
  auto ok = slurm_http_fixture("rest_cancel.json");
  EXPECT_TRUE(parse_slurmrestd_cancel(ok.status, ok.body));
  auto unknown = slurm_http_fixture("rest_cancel_unknown.json");
  auto c = parse_slurmrestd_cancel(unknown.status, unknown.body);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().kind, slurm_failure::not_found);
}

TEST(slurmrestd_answers, a_missing_token_is_unauthorized) {
  auto r = slurm_http_fixture("rest_no_token.txt");
  EXPECT_EQ(r.status, 401);
  auto p = parse_slurmrestd_ping(r.status, r.body);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().kind, slurm_failure::unauthorized);
}

TEST(slurmrestd_answers, hostile_bodies_are_malformed_not_crashes) {
  const std::string bodies[] = {
      "", "not json", "[]", "null", "{\"jobs\": 5}", "{\"jobs\": [5]}",
      "{\"jobs\": [{\"job_id\": \"7\"}]}", "{\"jobs\": [{\"job_id\": 7}]}",
      "{\"jobs\": [{\"job_id\": 7, \"job_state\": 3}]}",
      "{\"jobs\": [{\"job_id\": 7, \"job_state\": \"FAILED\", \"exit_code\": -1}]}",
      "{\"jobs\": [{\"job_id\": 7, \"job_state\": \"FAILED\", \"exit_code\": 99999999}]}",
      "{\"errors\": \"boom\"}", "{\"errors\": [{}]}", "{\"errors\": [7]}",
      "{\"job_id\": -3}", "{\"job_id\": 0}", "{\"job_id\": 99999999999}", "{\"job_id\": 1.5}",
      "{\"pings\": []}", "{\"pings\": [{\"ping\": \"MAYBE\"}]}",
      std::string("{\"jobs\": [\xff\xfe]}"), std::string(100000, '['),
  };
  for (const auto& body : bodies) {
    auto job = parse_slurmrestd_job(200, body, 7);
    ASSERT_FALSE(job) << body.substr(0, 80);
    EXPECT_EQ(job.error().kind, slurm_failure::malformed) << body.substr(0, 80);
    auto id = parse_slurmrestd_submit(200, body);
    ASSERT_FALSE(id) << body.substr(0, 80);
    EXPECT_EQ(id.error().kind, slurm_failure::malformed) << body.substr(0, 80);
    EXPECT_FALSE(parse_slurmrestd_ping(200, body)) << body.substr(0, 80);
  }
}

TEST(slurmrestd_answers, an_http_error_without_slurm_errors_is_a_failure) {
  auto s = parse_slurmrestd_job(502, "{\"meta\": {}}", 7);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, slurm_failure::command_failed);
  EXPECT_NE(s.error().message.find("502"), std::string::npos);
  auto html = parse_slurmrestd_submit(400, "Unable to parse query.");
  ASSERT_FALSE(html);
  EXPECT_EQ(html.error().kind, slurm_failure::malformed);
}

TEST(slurmrestd_submit_body, carries_every_field_as_json_values) {
  slurm_job_request job;
  job.name = "'; rm -rf ~ \"quoted\"";
  job.partition = "h100";
  job.nodes = 2;
  job.gpus_per_node = 8;
  job.time_limit_minutes = 30;
  job.working_directory = "/tmp/w";
  job.output_path = "/tmp/w/out-%j.log";
  job.environment = {{"PATH", "/usr/bin:/bin"}, {"TRIAL", "a=b,c;$(id)\n"}};
  job.script = "#!/bin/bash\necho \"$TRIAL\"\n";
  auto j = nlohmann::json::parse(slurmrestd_submit_body(job));
  EXPECT_EQ(j["script"], job.script);
  const auto& p = j["job"];
  EXPECT_EQ(p["name"], job.name);
  EXPECT_EQ(p["partition"], "h100");
  EXPECT_EQ(p["nodes"], nlohmann::json::array({2, 2}));
  EXPECT_EQ(p["gpus_per_node"], "8");
  EXPECT_EQ(p["time_limit"], 30);
  EXPECT_EQ(p["current_working_directory"], "/tmp/w");
  EXPECT_EQ(p["standard_output"], "/tmp/w/out-%j.log");
  EXPECT_EQ(p["environment"]["TRIAL"], "a=b,c;$(id)\n");
  EXPECT_FALSE(p.contains("account"));
  EXPECT_FALSE(p.contains("exclusive"));
  EXPECT_FALSE(p.contains("tasks_per_node"));

  // sbatch's options by slurmrestd v0.0.38's names for them.
  const auto base = job;
  job.tasks_per_node = 8;
  job.account = "llm-perf";
  job.qos = "high";
  job.constraint = "h100&ib";
  job.gres = "gpu:h100:8";
  job.exclusive = true;
  const auto o = nlohmann::json::parse(slurmrestd_submit_body(job))["job"];
  EXPECT_EQ(o["tasks_per_node"], 8);
  EXPECT_EQ(o["account"], "llm-perf");
  EXPECT_EQ(o["qos"], "high");
  EXPECT_EQ(o["constraints"], "h100&ib");
  EXPECT_EQ(o["gres"], "gpu:h100:8");
  EXPECT_EQ(o["exclusive"], "exclusive");
  job = base;

  job.gpus_per_node = 0;
  job.time_limit_minutes = 0;
  job.output_path.clear();
  auto k = nlohmann::json::parse(slurmrestd_submit_body(job));
  EXPECT_FALSE(k["job"].contains("gpus_per_node"));
  EXPECT_FALSE(k["job"].contains("time_limit"));
  EXPECT_FALSE(k["job"].contains("standard_output"));
}

TEST(slurmrestd_submit, a_parse_failure_names_the_fields_the_cluster_must_allow) {
  // As slurmrestd 22.05 answers a job whose gres it cannot parse (recorded
  // on tools/slurm-local, which configures no GPUs).
  const auto id = parse_slurmrestd_submit(
    400, R"({"meta": {}, "errors": [{"error_code": 9001, "error": "Failure during parsing"}]})");
  ASSERT_FALSE(id);
  slurm_job_request job;
  job.gpus_per_node = 8;
  job.gres = "gpu:h100:8";
  job.constraint = "ib";
  EXPECT_EQ(explain_parse_failure(id.error(), job).message,
            "Failure during parsing: slurmrestd refused a field of the job and names it only in "
            "its own log (\"error: ...\" beside \"job parsing failed\"); the fields this job sets "
            "that the cluster must allow: gpus_per_node=8 (GPUs are a gres the nodes must "
            "configure), gres=gpu:h100:8, constraints=ib");
  // Any other refusal keeps Slurm's own words.
  const slurm_error partition{slurm_failure::refused, "Invalid partition name specified"};
  EXPECT_EQ(explain_parse_failure(partition, job).message, "Invalid partition name specified");
}

TEST(slurmrestd_submit_body, invalid_utf8_in_a_value_does_not_throw) {
  slurm_job_request job;
  job.name = std::string("bad\xff\xfe name");
  job.partition = "a100";
  job.working_directory = "/tmp";
  job.script = "#!/bin/sh\n";
  EXPECT_NO_THROW(nlohmann::json::parse(slurmrestd_submit_body(job)));
}

} // namespace
} // namespace paratune
