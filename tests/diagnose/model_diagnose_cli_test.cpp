// `paratune diagnose --reasoner` against a real OpenAI-compatible HTTP
// server the test starts (tests/fixtures/chat_server.py), which answers
// well or serves faults in turn: garbage, a mesh MaxText refuses or that
// does not span the slice, a bottleneck the profile's numbers rule out, a
// slow answer, a dropped connection, an error echoing the request's
// headers. The Analyzer asks first, then the Proposal agent; each answer
// is used or refused with its reason, the built-in answer standing and
// saying why, every ask stored in the pool, and the API key nowhere but in
// the Authorization header.

#include <chrono>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "messages/codec.hpp"
#include "storage/message_pool.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/fixtures/local_http_server.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

constexpr const char* diagnose_key_variable = "PARATUNE_DIAGNOSE_LLM_KEY";
constexpr const char* diagnose_secret = "sk-diag-7f3e-never-stored";
constexpr const char* builtin_first_mesh = "replica=1,data=4,seq=1,model=4";

/// A scripted completion whose text is `answer` (a JSON object, dumped).
std::string completion(const nlohmann::json& answer) {
  return nlohmann::json{{"answer", answer.dump()}, {"usage", {500, 20}}}.dump() + "\n";
}

const nlohmann::json good_reading = {
  {"bottleneck", "hbm_bandwidth"}, {"confidence", 60},
  {"reason", "fusions stream at HBM speed and the all-reduce reads HBM at 23%"}};
const nlohmann::json good_mesh = {
  {"mesh", {{"data", 2}, {"model", 8}}},
  {"reason", "shard the weights over tensor parallelism so no chip gathers them whole"}};

struct model_diagnose_cli : ::testing::Test {
  void SetUp() override {
    dir = test::make_temp_dir("model-diagnose");
    test::use_source_configs();
    setenv(diagnose_key_variable, diagnose_secret, 1);
  }
  void TearDown() override {
    unsetenv(diagnose_key_variable);
    fs::remove_all(dir);
  }

  /// Runs `paratune diagnose` on ASAP's v6e-16 scenario with the model at
  /// `server`, after the server is started with `script`.
  test::program_result diagnose(const std::string& script, double timeout_s = 5,
                                int retries = 0) {
    server = std::make_unique<test::local_http_server>(
      "chat_server.py", std::vector<std::string>{test::write_file(dir, "script.jsonl", script),
                                                 dir + "/requests.jsonl"});
    const auto s = test::asap_dir("v6e-16-hbm");
    const auto reasoner = "{mode: llm, base_url: \"" + server->url()
                          + "/v1\", model: qwen2.5-7b-instruct, api_key_env: "
                          + diagnose_key_variable + ", timeout_s: " + std::to_string(timeout_s)
                          + ", max_retries: " + std::to_string(retries) + "}";
    return run({"diagnose", "--experiment", s + "/experiment.yaml", "--xprof", s, "--json",
                "--db", dir + "/pool", "--reasoner", reasoner});
  }

  test::program_result run(std::vector<std::string> args) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    return test::run_program(args);
  }

  /// The session's records, and that the key is in none of them.
  std::vector<wire::envelope> records(const std::string& session) {
    auto pool = message_pool::open(dir + "/pool");
    EXPECT_TRUE(pool);
    auto h = (*pool)->session_history(session);
    EXPECT_TRUE(h);
    for (const auto& e : *h)
      EXPECT_EQ(e.body.find(diagnose_secret), std::string::npos) << e.type;
    return *h;
  }

  std::vector<wire::llm_exchange> asks(const std::string& session) {
    std::vector<wire::llm_exchange> out;
    for (const auto& e : records(session))
      if (e.type == wire::type_name<wire::llm_exchange>())
        out.push_back(wire::body_of<wire::llm_exchange>(e));
    return out;
  }

  /// What the server was sent: every request's Authorization header and body.
  std::vector<nlohmann::json> requests() {
    std::ifstream in(dir + "/requests.jsonl");
    std::vector<nlohmann::json> out;
    for (std::string line; std::getline(in, line);)
      out.push_back(nlohmann::json::parse(line));
    return out;
  }

  /// The JSON `diagnose` printed, with the session its note names.
  nlohmann::json answer(const test::program_result& r, std::string& session) {
    const auto j = nlohmann::json::parse(r.out);
    for (const auto& n : j["notes"]) {
      const std::string note = n;
      const std::string marker = "recorded in the pool as session ";
      if (note.rfind(marker, 0) == 0)
        session = note.substr(marker.size());
    }
    EXPECT_FALSE(session.empty()) << r.out;
    return j;
  }

  static bool has_note(const nlohmann::json& j, const std::string& words) {
    for (const auto& n : j["notes"])
      if (n.get<std::string>().find(words) != std::string::npos)
        return true;
    return false;
  }

  std::string dir;
  std::unique_ptr<test::local_http_server> server;
};

TEST_F(model_diagnose_cli, a_good_reading_and_mesh_are_used_and_recorded) {
  const auto r = diagnose(completion(good_reading) + completion(good_mesh));
  ASSERT_EQ(r.status, 0) << r.err;
  std::string session;
  const auto j = answer(r, session);
  EXPECT_EQ(j["bottleneck"], "hbm_bandwidth");
  EXPECT_DOUBLE_EQ(j["confidence"].get<double>(), 0.6);  // the model's, under the evidence's
  EXPECT_EQ(j["summary"].get<std::string>().rfind(
              "The model's reading: hbm_bandwidth: fusions stream at HBM speed and the "
              "all-reduce reads HBM at 23% (Confidence: 60;", 0),
            0u)
    << j["summary"];
  ASSERT_EQ(j["proposals"].size(), 3u);
  EXPECT_EQ(j["proposals"][0]["mesh"], "replica=1,data=2,seq=1,model=8");
  EXPECT_NE(j["proposals"][0]["title"].get<std::string>().find("The model's proposal: "),
            std::string::npos);
  EXPECT_EQ(j["proposals"][1]["mesh"], builtin_first_mesh);
  EXPECT_TRUE(has_note(j, "Model: proposed replica=1,data=2,seq=1,model=8 (accepted"));
  const auto x = asks(session);
  ASSERT_EQ(x.size(), 2u);
  for (const auto& a : x) {
    EXPECT_EQ(a.agent, reasoning_agent::diagnosis);
    EXPECT_EQ(a.mode, reasoner_mode::llm);
    EXPECT_TRUE(a.chosen);
    EXPECT_TRUE(a.rejection.empty());
  }
  EXPECT_NE(x[0].messages[0].content.find("You are the Analyzer of paratune"), std::string::npos);
  EXPECT_NE(x[1].messages[0].content.find("You are the Proposal agent of paratune"),
            std::string::npos);
  // The stored diagnosis and proposals are the model's.
  int diagnoses = 0;
  for (const auto& e : records(session))
    if (e.type == wire::type_name<wire::diagnosis>()) {
      ++diagnoses;
      EXPECT_EQ(wire::body_of<wire::diagnosis>(e).bottleneck, "hbm_bandwidth");
    }
  EXPECT_EQ(diagnoses, 1);
  const auto sent = requests();
  ASSERT_EQ(sent.size(), 2u);
  for (const auto& q : sent)
    EXPECT_EQ(q["authorization"], std::string("Bearer ") + diagnose_secret);
}

TEST_F(model_diagnose_cli, garbage_is_refused_and_the_built_in_answers_stand) {
  const auto r = diagnose(R"({"answer": "the HBM, clearly"})" "\n"
                          R"({"answer": "{\"bottleneck\": \"hbm_bandwidth\"}"})" "\n"
                          R"({"raw": "<html>502 bad gateway</html>"})" "\n");
  ASSERT_EQ(r.status, 0) << r.err;
  std::string session;
  const auto j = answer(r, session);
  EXPECT_EQ(j["bottleneck"], "hbm_bandwidth");
  EXPECT_NE(j["summary"].get<std::string>().find(
              " Model: the model's answers were refused twice (unparsable); the built-in "
              "reading stands."),
            std::string::npos)
    << j["summary"];
  EXPECT_EQ(j["proposals"][0]["mesh"], builtin_first_mesh);
  EXPECT_TRUE(has_note(j, "Model: the model did not answer (malformed: "));
  const auto x = asks(session);
  ASSERT_EQ(x.size(), 3u);
  EXPECT_EQ(x[0].rejection, "unparsable");
  EXPECT_EQ(x[0].detail, "the answer is not JSON");
  EXPECT_EQ(x[1].rejection, "unparsable");
  EXPECT_EQ(x[1].detail, "the answer has no \"reason\" string");
  EXPECT_TRUE(x[2].rejection.empty());
  EXPECT_EQ(x[2].error.rfind("malformed: ", 0), 0u) << x[2].error;
  for (const auto& a : x)
    EXPECT_FALSE(a.chosen);
}

TEST_F(model_diagnose_cli, a_mesh_maxtext_refuses_or_off_the_slice_is_refused_with_the_reason) {
  const nlohmann::json too_many = {{"mesh", {{"data", 8}, {"model", 4}}},
                                   {"reason", "more data parallelism"}};
  const nlohmann::json two_slices = {{"mesh", {{"data", 4}, {"model", 4}}},
                                     {"dcn_mesh", {{"data", 2}}},
                                     {"reason", "spread over two slices"}};
  const auto r = diagnose(completion(good_reading) + completion(too_many)
                          + completion(two_slices));
  ASSERT_EQ(r.status, 0) << r.err;
  std::string session;
  const auto j = answer(r, session);
  EXPECT_EQ(j["proposals"][0]["mesh"], builtin_first_mesh);
  EXPECT_TRUE(has_note(j, "Model: the model's answers were refused twice (mesh_size); the "
                          "built-in proposals stand."));
  const auto x = asks(session);
  ASSERT_EQ(x.size(), 3u);
  EXPECT_TRUE(x[0].chosen);  // the Analyzer's reading
  EXPECT_EQ(x[1].rejection, "maxtext_rule");
  EXPECT_EQ(x[1].detail, "MaxText refuses it (ici_product): AssertionError: Number of devices "
                         "per slice 16 does not match the product of the ICI parallelism 32");
  EXPECT_EQ(x[2].rejection, "mesh_size");
  EXPECT_EQ(x[2].detail, "dcn_mesh data=2 spans 2 slices; the job has 1");
  // The second ask told the model why the first was refused.
  EXPECT_NE(x[2].messages.back().content.find("paratune refused that answer (maxtext_rule: "
                                              "MaxText refuses it (ici_product)"),
            std::string::npos);
}

TEST_F(model_diagnose_cli, a_bottleneck_the_profile_rules_out_is_refused) {
  const nlohmann::json comm = {{"bottleneck", "communication"}, {"confidence", 90},
                               {"reason", "the longest op is an all-reduce"}};
  const nlohmann::json none = {{"bottleneck", "unknown"}, {"confidence", 30},
                               {"reason", "hard to say"}};
  const auto r = diagnose(completion(comm) + completion(none) + completion(good_mesh));
  ASSERT_EQ(r.status, 0) << r.err;
  std::string session;
  const auto j = answer(r, session);
  EXPECT_EQ(j["bottleneck"], "hbm_bandwidth");
  EXPECT_NE(j["summary"].get<std::string>().find(
              " Model: the model's answers were refused twice (contradicts_measurement); the "
              "built-in reading stands."),
            std::string::npos);
  const auto x = asks(session);
  ASSERT_EQ(x.size(), 3u);
  EXPECT_EQ(x[0].rejection, "contradicts_measurement");
  EXPECT_EQ(x[0].detail.rfind("the profile's numbers give communication a score of ", 0), 0u)
    << x[0].detail;
  EXPECT_EQ(x[1].rejection, "contradicts_measurement");
  EXPECT_EQ(x[1].detail.rfind("the profile does say what limits the step: hbm_bandwidth "
                              "scores ", 0),
            0u)
    << x[1].detail;
  // The Proposal agent still asks, for the built-in class.
  EXPECT_TRUE(x[2].chosen);
  EXPECT_NE(x[2].messages[1].content.find("Diagnosed bottleneck: hbm_bandwidth"),
            std::string::npos);
}

TEST_F(model_diagnose_cli, a_model_slower_than_the_timeout_leaves_the_built_in_answers) {
  const auto started = std::chrono::steady_clock::now();
  const auto r = diagnose(R"({"slow": 3, "answer": "late"})" "\n", 1, 0);
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_LT(took, std::chrono::seconds(60));
  std::string session;
  const auto j = answer(r, session);
  EXPECT_EQ(j["bottleneck"], "hbm_bandwidth");
  EXPECT_NE(j["summary"].get<std::string>().find(" Model: the model did not answer (timed_out: "),
            std::string::npos)
    << j["summary"];
  EXPECT_EQ(j["proposals"][0]["mesh"], builtin_first_mesh);
  EXPECT_TRUE(has_note(j, "Model: the model did not answer (timed_out: "));
  const auto x = asks(session);
  ASSERT_EQ(x.size(), 2u);
  for (const auto& a : x) {
    EXPECT_EQ(a.error.rfind("timed_out: ", 0), 0u) << a.error;
    EXPECT_FALSE(a.chosen);
  }
}

TEST_F(model_diagnose_cli, a_dropped_connection_leaves_the_built_in_answers) {
  const auto r = diagnose(R"({"drop": true})" "\n", 5, 0);
  ASSERT_EQ(r.status, 0) << r.err;
  std::string session;
  const auto j = answer(r, session);
  EXPECT_EQ(j["bottleneck"], "hbm_bandwidth");
  EXPECT_NE(j["summary"].get<std::string>().find(
              " Model: the model did not answer (unreachable: "),
            std::string::npos)
    << j["summary"];
  EXPECT_EQ(j["proposals"][0]["mesh"], builtin_first_mesh);
  const auto x = asks(session);
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(x[0].error.rfind("unreachable: ", 0), 0u) << x[0].error;
}

TEST_F(model_diagnose_cli, the_key_travels_only_in_the_authorization_header) {
  // A server whose error repeats the request's headers, key included.
  const auto r = diagnose(R"({"echo_request": true, "status": 400})" "\n");
  ASSERT_EQ(r.status, 0) << r.err;
  std::string session;
  answer(r, session);
  const auto x = asks(session);  // checks every record for the key
  ASSERT_EQ(x.size(), 2u);
  for (const auto& a : x) {
    EXPECT_EQ(a.error.rfind("rejected: ", 0), 0u) << a.error;
    EXPECT_EQ(a.error.find(diagnose_secret), std::string::npos);
    for (const auto& m : a.messages)
      EXPECT_EQ(m.content.find(diagnose_secret), std::string::npos);
  }
  EXPECT_EQ(r.out.find(diagnose_secret), std::string::npos);
  EXPECT_EQ(r.err.find(diagnose_secret), std::string::npos);
  const auto sent = requests();
  ASSERT_EQ(sent.size(), 2u);
  for (const auto& q : sent) {
    EXPECT_EQ(q["authorization"], std::string("Bearer ") + diagnose_secret);
    EXPECT_EQ(q["body"].get<std::string>().find(diagnose_secret), std::string::npos);
  }
}

TEST_F(model_diagnose_cli, a_bad_model_setting_exits_2_before_anything_is_sent) {
  const auto s = test::asap_dir("v6e-16-hbm");
  const std::vector<std::string> base = {"diagnose", "--experiment", s + "/experiment.yaml",
                                         "--xprof", s, "--db", dir + "/pool", "--reasoner"};
  auto with = [&](const std::string& reasoner) {
    auto args = base;
    args.push_back(reasoner);
    return run(args);
  };
  auto r = with("{mode: llm, base_url: \"ftp://x/v1\", model: m}");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("error: --reasoner: field 'reasoner': reasoner base_url must start with "
                       "http:// or https://, not 'ftp://x/v1'"),
            std::string::npos)
    << r.err;
  r = with("{mode: hybrid, base_url: \"http://127.0.0.1:9/v1\", model: m}");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("error: --reasoner: the Analyzer and the Proposal agent take builtin or "
                       "llm, not hybrid"),
            std::string::npos)
    << r.err;
  r = with("{mode: llm, base_url: \"http://127.0.0.1:9/v1\", model: m, api_key_env: "
           "PARATUNE_NO_SUCH_KEY_VARIABLE}");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("error: --reasoner: environment variable PARATUNE_NO_SUCH_KEY_VARIABLE "
                       "(reasoner api_key_env) is not set"),
            std::string::npos)
    << r.err;
  r = with("{mode: llm, base_url: [unclosed");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("error: --reasoner: not YAML: "), std::string::npos) << r.err;
}

// `tune` on a TPU experiment with `reasoner:` asks the same model about
// each run it diagnoses: the asks are stored with the run's records, the
// key only ever in the Authorization header.
TEST_F(model_diagnose_cli, tune_asks_the_experiments_model_about_each_run) {
  server = std::make_unique<test::local_http_server>(
    "chat_server.py",
    std::vector<std::string>{test::write_file(dir, "script.jsonl",
                                              completion(good_reading) + completion(good_mesh)),
                             dir + "/requests.jsonl"});
  std::ifstream in(test::asap_dir("v6e-16-hbm") + "/experiment.yaml");
  std::string text{std::istreambuf_iterator<char>(in), {}};
  text += "trials: 1\nreasoner: {mode: llm, base_url: \"" + server->url()
          + "/v1\", model: qwen2.5-7b-instruct, api_key_env: " + diagnose_key_variable
          + ", timeout_s: 5, max_retries: 0}\n";
  const auto exp = test::write_file(dir, "experiment.yaml", text);
  const auto r = run({"tune", exp, "--json", "--db", dir + "/pool"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::string session = j["session"];
  ASSERT_EQ(j["trials"].size(), 1u);
  // The run's own profile (data=4,model=4 on the simulated slice) does not
  // bear the model's hbm_bandwidth out: refused, asked again (the mesh
  // answer is no reading), then the Proposal agent's ask is taken.
  const auto x = asks(session + ".t1");
  ASSERT_EQ(x.size(), 3u);
  EXPECT_NE(x[0].messages[0].content.find("You are the Analyzer of paratune"), std::string::npos);
  EXPECT_EQ(x[0].rejection, "contradicts_measurement");
  EXPECT_EQ(x[1].rejection, "unparsable");
  EXPECT_NE(x[2].messages[0].content.find("You are the Proposal agent of paratune"),
            std::string::npos);
  EXPECT_TRUE(x[2].chosen);
  for (const auto& a : x) {
    EXPECT_EQ(a.agent, reasoning_agent::diagnosis);
    EXPECT_EQ(a.mode, reasoner_mode::llm);
  }
  // The session's own records name the model, never the key.
  const auto opened = records(session);
  ASSERT_FALSE(opened.empty());
  const auto first = wire::body_of<wire::tpu_session_opened>(opened.front());
  EXPECT_EQ(first.reasoner.model, "qwen2.5-7b-instruct");
  EXPECT_EQ(first.reasoner.api_key_env, diagnose_key_variable);
  for (const auto& q : requests())
    EXPECT_EQ(q["authorization"], std::string("Bearer ") + diagnose_secret);
  // A model the experiment names without its key set is refused first.
  unsetenv(diagnose_key_variable);
  const auto refused = run({"tune", exp, "--db", dir + "/pool2"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("reasoner:"), std::string::npos) << refused.err;
}

} // namespace
} // namespace paratune
