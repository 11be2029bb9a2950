// paratune tune with a language model behind strategy generation, against
// a real OpenAI-compatible HTTP server the test starts
// (tests/fixtures/chat_server.py) that serves faults in turn: 429 with
// Retry-After, 500, a dropped connection, a slow answer, a body that is not
// a completion, malformed JSON, an invented parameter, a value outside the
// space, a repeat. The session completes, never launches an invalid or
// duplicate trial, stores every exchange, and the API key appears nowhere.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/config/job_loader.hpp"
#include "core/megatron_rules.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "storage/message_pool.hpp"
#include "tests/fixtures/local_http_server.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

constexpr const char* key_variable = "PARATUNE_E2E_LLM_KEY";
constexpr const char* secret_key = "sk-e2e-5b1c-never-stored";

struct llm_tune : ::testing::Test {
  void SetUp() override {
    dir = test::make_temp_dir("llm-tune");
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
    setenv(key_variable, secret_key, 1);
  }
  void TearDown() override {
    unsetenv(key_variable);
    fs::remove_all(dir);
  }

  /// The llama3-8b example on 8 A100s, 5 trials, with `reasoner`.
  std::string job(const std::string& reasoner) {
    return test::write_file(dir, "job.yaml",
                            "name: llama3-8b-llm\nmodel: llama3-8b\ncluster: dgx-a100-80g\n"
                            "nodes: 1\nprecision: fp16\n"
                            "initial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: "
                            "full}\ntrials: 5\nstop: budget\nsimulation: {seed: 7, train_iters: 12}\n"
                            "reasoner: " + reasoner + "\n");
  }

  test::program_result paratune(std::vector<std::string> args) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    return test::run_program(args);
  }

  std::vector<wire::envelope> history(const std::string& session) {
    auto pool = message_pool::open(dir + "/pool");
    EXPECT_TRUE(pool);
    auto h = (*pool)->session_history(session);
    EXPECT_TRUE(h);
    return *h;
  }

  std::string dir;
};

/// Every trial is valid for Megatron-LM and none repeats another.
void expect_valid_and_distinct(const nlohmann::json& trials, const job_spec& job) {
  std::set<std::string> seen;
  for (const auto& t : trials) {
    EXPECT_TRUE(seen.insert(t["config"].dump()).second || t.contains("retry_of"))
        << "repeated: " << t["config"].dump();
    const wire::config_map m = t["config"];
    EXPECT_TRUE(check_megatron_rules(job.model, wire::from_wire(m), job.world_size()).empty())
        << t["config"].dump();
  }
}

TEST_F(llm_tune, a_session_completes_under_every_fault_and_counts_the_refusals) {
  // The initial configuration in full: the model proposing it is a repeat.
  const auto job_file = job("builtin");
  const auto spec = load_job(job_file);
  nlohmann::json initial = nlohmann::json::object();
  for (const auto& [k, v] : to_map(spec.initial))
    initial[k] = v;
  const auto answer = [](const nlohmann::json& config, const std::string& reason) {
    return nlohmann::json{{"answer", nlohmann::json{{"config", config}, {"reason", reason}}.dump()},
                          {"usage", {800, 40}}}
        .dump();
  };
  const std::string script =
      // analysis for trial 2: 429, then not JSON, then an invented key
      R"({"status": 429, "retry_after": "1"})" "\n"
      R"({"answer": "TP four, please"})" "\n"
      + answer({{"zero_stage", "3"}}, "shard the optimizer") + "\n"
      // trial 3: 500, a dropped answer, a value outside the space, a repeat
      + R"({"status": 500})" "\n" R"({"drop": true})" "\n"
      + answer({{"tp", "3"}}, "an odd split") + "\n" + answer(initial, "go back") + "\n"
      // trial 4 and on: too slow, then not a completion
      + R"({"slow": 3, "answer": "late"})" "\n" R"({"raw": "<html>bad gateway</html>"})" "\n";
  const auto log = dir + "/requests.jsonl";
  test::local_http_server server("chat_server.py",
                                 {test::write_file(dir, "script.jsonl", script), log});
  const auto file = job("{mode: llm, base_url: \"" + server.url()
                        + "/v1\", model: qwen2.5-7b-instruct, api_key_env: " + key_variable
                        + ", timeout_s: 1, max_retries: 2}");
  const auto r = paratune({"tune", file, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["state"], "finished");
  ASSERT_EQ(j["trials"].size(), 5u);
  expect_valid_and_distinct(j["trials"], spec);
  // Trial 2: unparsable, then unknown_parameter. Trial 3: unknown_value,
  // then repeat. Trials 4 and 5: no answer (a timeout, then a body that is
  // not a completion; then that body again).
  const auto& m = j["model"];
  EXPECT_EQ(m["mode"], "llm");
  EXPECT_EQ(m["asks"], 6);
  EXPECT_EQ(m["chosen"], 0);
  EXPECT_EQ(m["no_answer"], 2);
  EXPECT_EQ(m["refused"], (nlohmann::json{{"repeat", 1}, {"unknown_parameter", 1},
                                          {"unknown_value", 1}, {"unparsable", 1}}));
  EXPECT_EQ(m["refused_total"], 4);
  EXPECT_EQ(m["prompt_tokens"], 3 * 800);  // the three answers that said their usage

  // Every exchange is in the pool, with the prompt; the key nowhere.
  const auto h = history(j["session"]);
  int exchanges = 0;
  for (const auto& e : h) {
    EXPECT_EQ(e.body.find(secret_key), std::string::npos) << e.type;
    if (e.type != wire::type_name<wire::llm_exchange>())
      continue;
    ++exchanges;
    const auto x = wire::body_of<wire::llm_exchange>(e);
    ASSERT_GE(x.messages.size(), 2u);
    EXPECT_NE(x.messages[1].content.find("| 1 | "), std::string::npos);  // the history table
  }
  EXPECT_EQ(exchanges, 6);
  EXPECT_EQ(r.err.find(secret_key), std::string::npos);
  EXPECT_EQ(r.out.find(secret_key), std::string::npos);
  // The report counts the refusals by reason, and shows no key either.
  const auto md = paratune({"report", j["session"], "--db", dir + "/pool"});
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_NE(md.out.find("The guardrails refused 4 answers: repeat 1, unknown\\_parameter 1, "
                        "unknown\\_value 1, unparsable 1."),
            std::string::npos)
      << md.out;
  EXPECT_EQ(md.out.find(secret_key), std::string::npos);
  // The server saw the key, on every request, as a bearer token.
  std::ifstream in(log);
  int requests = 0;
  for (std::string line; std::getline(in, line); ++requests)
    EXPECT_EQ(nlohmann::json::parse(line)["authorization"], std::string("Bearer ") + secret_key);
  EXPECT_EQ(requests, 10);  // 6 asks and 4 retries (429, 500, the drop, the timeout)
}

TEST_F(llm_tune, hybrid_puts_the_models_first_choice_first) {
  const std::string script =
      R"({"answer": "{\"ranking\": [2, 1], \"reason\": \"the second candidate keeps TP inside the node\"}"})"
      "\n";
  test::local_http_server server("chat_server.py",
                                 {test::write_file(dir, "script.jsonl", script),
                                  dir + "/requests.jsonl"});
  const auto file = job("{mode: hybrid, base_url: \"" + server.url()
                        + "/v1\", model: qwen2.5-7b-instruct, timeout_s: 5}");
  const auto r = paratune({"tune", file, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["trials"].size(), 5u);
  expect_valid_and_distinct(j["trials"], load_job(file));
  EXPECT_EQ(j["model"]["asks"], 4);
  EXPECT_EQ(j["model"]["chosen"], 4);
  EXPECT_EQ(j["model"]["refused_total"], 0);
  // Trials 2-5 were the built-in reasoner's second candidate each time,
  // with the model's reason beside the built-in one.
  int explained = 0;
  for (const auto& e : history(j["session"]))
    if (e.type == wire::type_name<wire::proposal>()) {
      const auto p = wire::body_of<wire::proposal>(e);
      explained += p.why.find("the model ranked it first: the second candidate keeps TP inside "
                              "the node") != std::string::npos;
    }
  EXPECT_EQ(explained, 4);
}

TEST_F(llm_tune, a_bad_reasoner_is_refused_with_the_field_named) {
  auto r = paratune({"tune", job("{mode: llm, base_url: \"ftp://x/v1\", model: m}"), "--db",
                     dir + "/pool"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("field 'reasoner': reasoner base_url must start with http:// or "
                       "https://, not 'ftp://x/v1'"),
            std::string::npos)
      << r.err;
  r = paratune({"tune", job("{mode: llm, base_url: \"http://127.0.0.1:9/v1\", model: m, "
                            "temperature: 0.3}"),
                "--db", dir + "/pool"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("reasoner: unknown key 'temperature' (known: mode, base_url, model, "
                       "api_key_env, timeout_s, max_retries, structured_output, agents)"),
            std::string::npos)
      << r.err;
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

TEST_F(llm_tune, a_crash_no_rule_knows_is_read_by_the_model_through_the_guardrails) {
  // Trial 2 dies with a segmentation fault after three iterations. The
  // model first calls it a start-up assertion (which the iterations rule
  // out), then a lost node.
  const auto answer = [](const nlohmann::json& a) {
    return nlohmann::json{{"answer", a.dump()}, {"usage", {700, 30}}}.dump();
  };
  const std::string script =
    answer({{"kind", "config_invalid"}, {"blamed", {"tp"}}, {"confidence", 85},
            {"reason", "TP 8 is not a valid split"}}) + "\n"
    + answer({{"kind", "node_failure"}, {"blamed", nlohmann::json::array()}, {"confidence", 60},
              {"reason", "A segfault mid-run with a valid split points at the node"}}) + "\n";
  test::local_http_server server("chat_server.py",
                                 {test::write_file(dir, "script.jsonl", script),
                                  dir + "/requests.jsonl"});
  const auto sim = test::bin_dir() + "/paratune-sim";
  const auto file = test::write_file(
    dir, "job.yaml",
    "name: llama3-8b-crash\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
    "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
    "trials: 4\nstop: budget\n"
    "reasoner: {mode: builtin, agents: {failure_analysis: {mode: llm, base_url: \""
      + server.url() + "/v1\", model: qwen2.5-7b-instruct, api_key_env: " + key_variable
      + ", timeout_s: 5, max_retries: 0}}}\n"
    "pools:\n"
    "  - {name: gpu-box, kind: local, capacity: 1,\n"
    "     launch: [/usr/bin/python3, \"" + test::source_dir() + "/tests/fixtures/crashing_trainer.py\",\n"
    "              \"2\", \"{trial}\", \"" + sim + "\", --sim-cluster, dgx-a100-80g,\n"
    "              --sim-world-size, \"{gpus_per_node}\", --sim-time-scale, \"0\",\n"
    "              --sim-failure-rate, \"0\", --sim-seed, \"{trial}\", \"{megatron_args}\"]}\n");
  const auto r = paratune({"tune", file, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_GE(j["trials"].size(), 2u);
  EXPECT_EQ(j["trials"][1]["status"], "failed");
  const auto h = history(j["session"]);
  std::vector<wire::llm_exchange> asks;
  std::vector<wire::failure_diagnosis> diagnoses;
  for (const auto& e : h) {
    EXPECT_EQ(e.body.find(secret_key), std::string::npos) << e.type;
    if (e.type == wire::type_name<wire::llm_exchange>())
      asks.push_back(wire::body_of<wire::llm_exchange>(e));
    else if (e.type == wire::type_name<wire::failure_diagnosis>())
      diagnoses.push_back(wire::body_of<wire::failure_diagnosis>(e));
  }
  ASSERT_EQ(asks.size(), 2u);
  EXPECT_EQ(asks[0].agent, reasoning_agent::failure_analysis);
  EXPECT_EQ(asks[0].after_trial, 2);
  EXPECT_EQ(asks[0].rejection, "contradicts_measurement");
  EXPECT_EQ(asks[0].detail, "trial 2 trained 3 iterations before it failed: a start-up "
                            "assertion (config_invalid) cannot be the cause");
  // The model saw the crash in the log the trial left.
  EXPECT_NE(asks[0].messages[1].content.find("Fatal Python error: Segmentation fault"),
            std::string::npos);
  EXPECT_TRUE(asks[1].rejection.empty());
  EXPECT_TRUE(asks[1].chosen);
  ASSERT_EQ(diagnoses.size(), 1u);
  EXPECT_EQ(diagnoses[0].trial, 2);
  EXPECT_EQ(diagnoses[0].kind, failure_kind::node_failure);
  EXPECT_TRUE(diagnoses[0].blamed.empty());
  EXPECT_TRUE(diagnoses[0].retry);
  EXPECT_EQ(diagnoses[0].summary, "A segfault mid-run with a valid split points at the node "
                                  "(Confidence: 60; the model's reading)");
  // tune --json and the report name the agent behind the model.
  EXPECT_EQ(j["model"]["agents"],
            (nlohmann::json::array({{{"agent", "failure_analysis"}, {"mode", "llm"},
                                     {"model", "qwen2.5-7b-instruct"}, {"asks", 2}}})));
  EXPECT_EQ(j["model"]["refused"], (nlohmann::json{{"contradicts_measurement", 1}}));
  EXPECT_EQ(r.err.find(secret_key), std::string::npos);
  EXPECT_EQ(r.out.find(secret_key), std::string::npos);
}

TEST_F(llm_tune, ask_is_answered_by_the_model_grounded_in_the_pool_and_guarded) {
  // A builtin session; the dialogue alone has a model behind it.
  const auto answer = [](const nlohmann::json& a) {
    return nlohmann::json{{"answer", a.dump()}, {"usage", {1200, 60}}}.dump();
  };
  const std::string script =
    answer({{"answer", "Trial 9 was the best."}, {"trials", {9}}}) + "\n"
    + answer({{"answer", "The best run so far is trial 1; it was measured, not predicted."},
              {"trials", {1}}}) + "\n"
    + R"({"status": 500})" "\n";
  const auto log = dir + "/requests.jsonl";
  test::local_http_server server("chat_server.py",
                                 {test::write_file(dir, "script.jsonl", script), log});
  const auto file = job("{mode: builtin, agents: {dialogue: {mode: llm, base_url: \""
                        + server.url() + "/v1\", model: qwen2.5-7b-instruct, api_key_env: "
                        + key_variable + ", timeout_s: 5, max_retries: 0}}}");
  const auto t = paratune({"tune", file, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(t.status, 0) << t.err;
  const std::string session = nlohmann::json::parse(t.out)["session"];

  const auto first = paratune({"ask", session, "Which configuration is best?", "--db",
                               dir + "/pool", "--json"});
  ASSERT_EQ(first.status, 0) << first.err;
  const auto a = nlohmann::json::parse(first.out);
  EXPECT_EQ(a["answer"], "The best run so far is trial 1; it was measured, not predicted.");
  EXPECT_EQ(a["by_model"], true);
  EXPECT_EQ(a["model"], "qwen2.5-7b-instruct");
  EXPECT_EQ(a["topic"], "best");
  EXPECT_EQ(a["thread"], 1);

  // The follow-up carries the thread; the model fails (500) and the
  // built-in reasoner answers, saying why.
  const auto second = paratune({"ask", session, "Are you sure?", "--db", dir + "/pool",
                                "--thread", "1"});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_NE(second.out.find("(thread 1, turn 2; answered by the built-in reasoner: the model "
                            "did not answer (server_error: "),
            std::string::npos) << second.out;
  EXPECT_NE(second.out.find("the predictions were off by "), std::string::npos) << second.out;

  // What the model was asked: the reasoner's findings, and on the
  // follow-up the thread so far.
  std::ifstream in(log);
  std::vector<nlohmann::json> requests;
  for (std::string line; std::getline(in, line);)
    requests.push_back(nlohmann::json::parse(nlohmann::json::parse(line)["body"].get<std::string>()));
  ASSERT_EQ(requests.size(), 3u);
  const auto& asked = requests[0]["messages"];
  EXPECT_NE(asked.back()["content"].get<std::string>().find("Question: Which configuration is "
                                                           "best?"),
            std::string::npos);
  EXPECT_NE(asked.back()["content"].get<std::string>().find("The best configuration is trial "),
            std::string::npos);
  const auto& follow_up = requests[2]["messages"];
  ASSERT_EQ(follow_up.size(), 4u);  // system, the first question, its answer, the new one
  EXPECT_EQ(follow_up[1]["content"], "Which configuration is best?");
  EXPECT_EQ(follow_up[2]["content"],
            "The best run so far is trial 1; it was measured, not predicted.");

  // Stored: two turns, three exchanges (the first refused: trial 9 does not
  // exist), and the key nowhere.
  int turns = 0;
  std::vector<std::string> refusals;
  for (const auto& e : history(session)) {
    EXPECT_EQ(e.body.find(secret_key), std::string::npos) << e.type;
    turns += e.type == wire::type_name<wire::dialogue_turn>();
    if (e.type == wire::type_name<wire::llm_exchange>()) {
      const auto x = wire::body_of<wire::llm_exchange>(e);
      EXPECT_EQ(x.agent, reasoning_agent::dialogue);
      refusals.push_back(x.rejection + (x.detail.empty() ? "" : ": " + x.detail));
    }
  }
  EXPECT_EQ(turns, 2);
  EXPECT_EQ(refusals, (std::vector<std::string>{
                        "unknown_value: trial 9 is not in this session (it has 5 trials)", "",
                        ""}));
  for (const auto* out : {&first.out, &first.err, &second.out, &second.err})
    EXPECT_EQ(out->find(secret_key), std::string::npos);
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

/// Bottleneck analysis (OptiCo's health reading) behind the model at
/// `url`, every other agent builtin.
std::string health_reasoner(const std::string& url, double timeout_s) {
  return "{mode: builtin, agents: {bottleneck_analysis: {mode: llm, base_url: \"" + url
         + "/v1\", model: qwen2.5-7b-instruct, api_key_env: " + key_variable
         + ", timeout_s: " + std::to_string(timeout_s) + ", max_retries: 0}}}";
}

std::string health_answer(const std::string& state, const std::string& reason) {
  return nlohmann::json{{"answer", nlohmann::json{{"health", state}, {"reason", reason}}.dump()},
                        {"usage", {600, 25}}}
           .dump()
         + "\n";
}

TEST_F(llm_tune, bottleneck_analysis_refuses_what_the_run_rules_out_and_survives_every_fault) {
  // After trial 1: a body that is not a completion. After trial 2: a
  // memory-bound reading of a run far from full memory, twice. After
  // trial 3: too slow. After trial 4: a dropped connection. Then a reading
  // the numbers allow.
  const std::string script =
    R"({"raw": "<html>bad gateway</html>"})" "\n"
    + health_answer("MEMORY_BOUND", "memory is the limit") + health_answer("MEMORY_BOUND", "sure")
    + R"({"slow": 3, "answer": "late"})" "\n" R"({"drop": true})" "\n"
    + health_answer("PERFORMANCE_TUNE", "no overriding problem: tune the standard knobs");
  const auto log = dir + "/requests.jsonl";
  test::local_http_server server("chat_server.py",
                                 {test::write_file(dir, "script.jsonl", script), log});
  // Six trials: five analyses move from a run that trained.
  const auto file = job(health_reasoner(server.url(), 1));
  std::ifstream in_job(file);
  std::string text{std::istreambuf_iterator<char>(in_job), {}};
  text.replace(text.find("trials: 5"), 9, "trials: 6");
  test::write_file(dir, "job.yaml", text);
  const auto r = paratune({"tune", file, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["state"], "finished");
  ASSERT_EQ(j["trials"].size(), 6u);
  std::vector<wire::llm_exchange> asks;
  std::vector<wire::analysis_report> reports;
  for (const auto& e : history(j["session"])) {
    EXPECT_EQ(e.body.find(secret_key), std::string::npos) << e.type;
    if (e.type == wire::type_name<wire::llm_exchange>())
      asks.push_back(wire::body_of<wire::llm_exchange>(e));
    else if (e.type == wire::type_name<wire::analysis_report>())
      reports.push_back(wire::body_of<wire::analysis_report>(e));
  }
  ASSERT_GE(asks.size(), 6u);
  for (const auto& a : asks)
    EXPECT_EQ(a.agent, reasoning_agent::bottleneck_analysis);
  EXPECT_EQ(asks[0].error.rfind("malformed: ", 0), 0u) << asks[0].error;
  EXPECT_EQ(asks[1].rejection, "contradicts_measurement");
  EXPECT_EQ(asks[1].detail.rfind("MEMORY_BOUND needs peak memory above 95% of the device; trial "
                                 "measured MFU ", 0),
            0u)
    << asks[1].detail;
  EXPECT_EQ(asks[2].rejection, "contradicts_measurement");
  EXPECT_EQ(asks[3].error.rfind("timed_out: ", 0), 0u) << asks[3].error;
  EXPECT_EQ(asks[4].error.rfind("unreachable: ", 0), 0u) << asks[4].error;
  EXPECT_TRUE(asks[5].chosen);
  EXPECT_TRUE(asks[5].rejection.empty());
  // The model saw the run it was asked about, and the history.
  EXPECT_NE(asks[1].messages[1].content.find("Its numbers: MFU "), std::string::npos);
  EXPECT_NE(asks[1].messages[1].content.find("| 1 | "), std::string::npos);
  // What each analysis recorded: the built-in reading and why it stood, or
  // the model's agreement.
  int refused = 0, agreed = 0;
  for (const auto& rep : reports) {
    refused += rep.reasoning.find("Health: Model: the model's answers were refused twice "
                                  "(contradicts_measurement); the built-in reading stands.")
               != std::string::npos;
    agreed += rep.reasoning.find("Health (the model agrees): ") != std::string::npos;
  }
  EXPECT_EQ(refused, 1);
  EXPECT_GE(agreed, 1);
  // The key: only in the Authorization header.
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    const auto q = nlohmann::json::parse(line);
    EXPECT_EQ(q["authorization"], std::string("Bearer ") + secret_key);
    EXPECT_EQ(q["body"].get<std::string>().find(secret_key), std::string::npos);
  }
  EXPECT_EQ(r.err.find(secret_key), std::string::npos);
  EXPECT_EQ(r.out.find(secret_key), std::string::npos);
}

TEST_F(llm_tune, bottleneck_analysis_never_leaks_the_key_a_server_echoes) {
  test::local_http_server server(
    "chat_server.py", {test::write_file(dir, "script.jsonl",
                                        R"({"echo_request": true, "status": 400})" "\n"),
                       dir + "/requests.jsonl"});
  const auto r = paratune({"tune", job(health_reasoner(server.url(), 5)), "--db", dir + "/pool",
                           "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  int asks = 0;
  for (const auto& e : history(j["session"])) {
    EXPECT_EQ(e.body.find(secret_key), std::string::npos) << e.type;
    if (e.type != wire::type_name<wire::llm_exchange>())
      continue;
    ++asks;
    const auto x = wire::body_of<wire::llm_exchange>(e);
    EXPECT_EQ(x.error.rfind("rejected: ", 0), 0u) << x.error;
  }
  EXPECT_GE(asks, 4);
  EXPECT_EQ(r.err.find(secret_key), std::string::npos);
  EXPECT_EQ(r.out.find(secret_key), std::string::npos);
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

TEST_F(llm_tune, bottleneck_analysis_a_reading_the_numbers_allow_replaces_the_built_in_one) {
  // A pipelined start under MFU 0.5 reads HIGH_PP_OVERHEAD built in; the
  // model's PERFORMANCE_TUNE (always consistent with the numbers) is used.
  test::local_http_server server(
    "chat_server.py",
    {test::write_file(dir, "script.jsonl",
                      health_answer("PERFORMANCE_TUNE", "the bubble is small at 32 micro-batches; "
                                                        "tune the standard knobs")),
     dir + "/requests.jsonl"});
  const auto file = test::write_file(
    dir, "job.yaml",
    "name: llama3-8b-pp\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\nprecision: fp16\n"
    "initial: {tp: 4, pp: 2, mbs: 1, gbs: 512, seq: 8192, recompute: full}\ntrials: 3\n"
    "stop: budget\nsimulation: {seed: 7, train_iters: 12}\nreasoner: "
      + health_reasoner(server.url(), 5) + "\n");
  const auto r = paratune({"tune", file, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::vector<wire::llm_exchange> asks;
  std::vector<wire::analysis_report> reports;
  for (const auto& e : history(j["session"])) {
    if (e.type == wire::type_name<wire::llm_exchange>())
      asks.push_back(wire::body_of<wire::llm_exchange>(e));
    else if (e.type == wire::type_name<wire::analysis_report>())
      reports.push_back(wire::body_of<wire::analysis_report>(e));
  }
  ASSERT_FALSE(asks.empty());
  EXPECT_TRUE(asks[0].chosen);
  EXPECT_NE(asks[0].messages[1].content.find("paratune's reading: HIGH_PP_OVERHEAD (directive "
                                             "REDUCE_PIPELINE_DEPTH)"),
            std::string::npos)
    << asks[0].messages[1].content;
  // The analysis after trial 1 is the model's reading, and says whose.
  const auto after_first = std::find_if(reports.begin(), reports.end(), [](const auto& rep) {
    return rep.after_trial == 1;
  });
  ASSERT_NE(after_first, reports.end());
  EXPECT_EQ(after_first->health, "PERFORMANCE_TUNE");
  EXPECT_EQ(after_first->directive, "NONE");
  EXPECT_NE(after_first->reasoning.find("the model's reading: the bubble is small at 32 "
                                        "micro-batches; tune the standard knobs (checked against "
                                        "the run's numbers; built-in: HIGH_PP_OVERHEAD)"),
            std::string::npos)
    << after_first->reasoning;
}

} // namespace
} // namespace paratune
