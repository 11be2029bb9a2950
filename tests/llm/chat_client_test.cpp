// The chat-completions client against a real HTTP server that serves
// recorded behaviours (tests/fixtures/chat_server.py): good answers,
// 429 with Retry-After, 500, a refused schema, a slow answer, a connection
// that drops mid-answer, a body that is not a completion.

#include "adapters/llm/chat_client.hpp"

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/fixtures/local_http_server.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using std::chrono::milliseconds;

constexpr const char* key_variable = "PARATUNE_TEST_LLM_KEY";
constexpr const char* secret_key = "sk-test-9f3a-do-not-leak";

struct scripted_server {
  std::string dir = test::make_temp_dir("chat");
  std::string log = dir + "/requests.jsonl";
  test::local_http_server server;

  explicit scripted_server(const std::string& script)
    : server("chat_server.py", {test::write_file(dir, "script.jsonl", script), log}) {}

  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);)
      out.push_back(nlohmann::json::parse(line));
    return out;
  }
};

reasoner_settings settings_for(const scripted_server& s) {
  reasoner_settings r;
  r.mode = reasoner_mode::llm;
  r.base_url = s.server.url() + "/v1";
  r.model = "qwen2.5-7b-instruct";
  r.api_key_env = key_variable;
  r.timeout_s = 5;
  r.max_retries = 3;
  return r;
}

/// Records the waits instead of sleeping them.
struct recorded_waits {
  std::vector<milliseconds> waits;
  chat_client::sleeper sleeper() {
    return [this](milliseconds ms) { waits.push_back(ms); };
  }
};

const std::vector<chat_message> question = {{"system", "You tune Megatron-LM."},
                                            {"user", "Propose one configuration."}};

class chat_client_test : public ::testing::Test {
protected:
  void SetUp() override { setenv(key_variable, secret_key, 1); }
  void TearDown() override { unsetenv(key_variable); }
};

TEST_F(chat_client_test, sends_the_model_messages_key_and_schema_and_reads_the_answer) {
  scripted_server s(R"({"answer": "{\"config\": {\"tp\": \"2\"}}", "usage": [120, 17]})" "\n");
  const nlohmann::json schema = {{"type", "object"}};
  const auto r = chat_client(settings_for(s)).complete(question, &schema);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().content, R"({"config": {"tp": "2"}})");
  EXPECT_EQ(r.value().prompt_tokens, 120);
  EXPECT_EQ(r.value().completion_tokens, 17);
  EXPECT_EQ(r.value().attempts, 1);
  EXPECT_TRUE(r.value().structured);
  EXPECT_GT(r.value().latency_ms, 0);
  const auto sent = s.requests();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["path"], "/v1/chat/completions");
  EXPECT_EQ(sent[0]["authorization"], std::string("Bearer ") + secret_key);
  const auto body = nlohmann::json::parse(sent[0]["body"].get<std::string>());
  EXPECT_EQ(body["model"], "qwen2.5-7b-instruct");
  EXPECT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][1]["content"], "Propose one configuration.");
  EXPECT_EQ(body["response_format"]["type"], "json_schema");
  EXPECT_EQ(body["response_format"]["json_schema"]["schema"], schema);
}

TEST_F(chat_client_test, honours_retry_after_on_429_and_backs_off_on_500) {
  scripted_server s(R"({"status": 429, "retry_after": "7"})" "\n"
                    R"({"status": 500})" "\n"
                    R"({"answer": "ok", "usage": [1, 1]})" "\n");
  recorded_waits w;
  const auto r = chat_client(settings_for(s), w.sleeper()).complete(question);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().attempts, 3);
  ASSERT_EQ(w.waits.size(), 2u);
  EXPECT_EQ(w.waits[0], milliseconds(7000));  // the server's Retry-After, above the backoff
  // The second backoff: 1 s x jitter in [0.5, 1.0].
  EXPECT_GE(w.waits[1], milliseconds(500));
  EXPECT_LE(w.waits[1], milliseconds(1000));
  EXPECT_DOUBLE_EQ(r.value().waited_ms, double((w.waits[0] + w.waits[1]).count()));
  EXPECT_EQ(s.requests().size(), 3u);
}

TEST_F(chat_client_test, gives_up_after_the_retries_with_the_last_failure) {
  scripted_server s(R"({"status": 503})" "\n");
  recorded_waits w;
  auto settings = settings_for(s);
  settings.max_retries = 2;
  const auto r = chat_client(settings, w.sleeper()).complete(question);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm_failure::server_error);
  EXPECT_EQ(r.error().attempts, 3);
  EXPECT_EQ(r.error().message, "POST " + s.server.url() + "/v1/chat/completions: HTTP 503");
  EXPECT_EQ(w.waits.size(), 2u);
  EXPECT_EQ(s.requests().size(), 3u);
}

TEST_F(chat_client_test, asks_again_without_the_schema_when_the_server_refuses_it) {
  scripted_server s(R"({"status": 400, "body": "{\"error\": \"response_format is not supported\"}"})"
                    "\n" R"({"answer": "{}"})" "\n");
  const nlohmann::json schema = {{"type", "object"}};
  const auto r = chat_client(settings_for(s)).complete(question, &schema);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r.value().structured);
  const auto sent = s.requests();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_TRUE(nlohmann::json::parse(sent[0]["body"].get<std::string>()).contains("response_format"));
  EXPECT_FALSE(nlohmann::json::parse(sent[1]["body"].get<std::string>()).contains("response_format"));
}

TEST_F(chat_client_test, a_slow_answer_times_out_and_is_retried) {
  scripted_server s(R"({"slow": 3, "answer": "late"})" "\n" R"({"answer": "in time"})" "\n");
  recorded_waits w;
  auto settings = settings_for(s);
  settings.timeout_s = 1;
  const auto r = chat_client(settings, w.sleeper()).complete(question);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().content, "in time");
  EXPECT_EQ(r.value().attempts, 2);
  // Every attempt slow: the failure says so.
  scripted_server slow(R"({"slow": 3, "answer": "late"})" "\n");
  settings = settings_for(slow);
  settings.timeout_s = 1;
  settings.max_retries = 1;
  const auto e = chat_client(settings, w.sleeper()).complete(question);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, llm_failure::timed_out);
  EXPECT_EQ(e.error().attempts, 2);
}

TEST_F(chat_client_test, a_connection_dropped_mid_answer_is_retried) {
  scripted_server s(R"({"drop": true})" "\n" R"({"answer": "whole"})" "\n");
  recorded_waits w;
  const auto r = chat_client(settings_for(s), w.sleeper()).complete(question);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().content, "whole");
  EXPECT_EQ(r.value().attempts, 2);
}

TEST_F(chat_client_test, a_body_that_is_not_a_completion_is_malformed) {
  scripted_server s(R"({"raw": "<html>gateway</html>"})" "\n");
  const auto r = chat_client(settings_for(s)).complete(question);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm_failure::malformed);
  EXPECT_EQ(r.error().message,
            "POST " + s.server.url() + "/v1/chat/completions: the answer is not a JSON object");
  scripted_server empty(R"({"raw": "{\"choices\": []}"})" "\n");
  const auto e = chat_client(settings_for(empty)).complete(question);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("the answer has no choices"), std::string::npos);
}

TEST_F(chat_client_test, the_key_never_reaches_an_error_message) {
  // A server that repeats the request's headers in its refusal.
  scripted_server s(R"({"echo_request": true, "status": 400})" "\n");
  const auto r = chat_client(settings_for(s)).complete(question);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, llm_failure::rejected);
  EXPECT_EQ(r.error().message.find(secret_key), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("[redacted]"), std::string::npos) << r.error().message;
}

TEST_F(chat_client_test, bad_settings_are_refused_before_anything_is_sent) {
  reasoner_settings r;
  r.base_url = "ftp://127.0.0.1/v1";
  r.model = "m";
  EXPECT_EQ(*chat_client(r).check_settings(),
            "reasoner base_url must start with http:// or https://, not 'ftp://127.0.0.1/v1'");
  r.base_url = "http://user:pw@127.0.0.1/v1";
  EXPECT_NE(chat_client(r).check_settings()->find("must not carry credentials"), std::string::npos);
  r.base_url = "http://127.0.0.1:9/v1";
  r.api_key_env = "PARATUNE_TEST_UNSET_KEY";
  const auto e = chat_client(r).complete(question);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().kind, llm_failure::invalid_settings);
  EXPECT_EQ(e.error().message,
            "environment variable PARATUNE_TEST_UNSET_KEY (reasoner api_key_env) is not set");
  EXPECT_EQ(e.error().attempts, 0);
}

TEST(retry_after, reads_seconds_and_http_dates) {
  EXPECT_EQ(*retry_after_wait("3"), milliseconds(3000));
  EXPECT_EQ(*retry_after_wait("99999999"), milliseconds(60000));
  EXPECT_FALSE(retry_after_wait("soon"));
  EXPECT_FALSE(retry_after_wait(""));
  EXPECT_EQ(*retry_after_wait("Wed, 21 Oct 2015 07:28:00 GMT"), milliseconds(0)); // past
}

} // namespace
} // namespace paratune
