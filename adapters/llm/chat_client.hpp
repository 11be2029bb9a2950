#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/llm/chat_message.hpp"
#include "core/reasoner_settings.hpp"

namespace paratune {

/// Why a chat completion brought no answer. Every message names the
/// endpoint and what went wrong, never the API key.
enum class llm_failure {
  invalid_settings,  ///< nothing was sent: a bad URL, a key variable that is not set
  unreachable,       ///< no connection, or it dropped before a whole answer came
  timed_out,         ///< no whole answer within the timeout
  rate_limited,      ///< 429 on every attempt
  server_error,      ///< 5xx on every attempt
  rejected,          ///< a 4xx other than 429: the request itself was refused
  malformed,         ///< an answer came, but not a chat completion
};

std::string_view to_string(llm_failure kind);

struct llm_error {
  llm_failure kind = llm_failure::malformed;
  std::string message;
  int attempts = 0;
};

/// One completion, and what it cost.
struct chat_reply {
  std::string content;          ///< the first choice's message text
  int prompt_tokens = 0;        ///< as the server counted them (0 when it did not say)
  int completion_tokens = 0;
  double latency_ms = 0;        ///< every attempt and wait included
  double waited_ms = 0;         ///< of which spent waiting between attempts
  int attempts = 0;
  bool structured = false;      ///< the server accepted the JSON schema
};

/// A chat_reply or the llm_error saying why there is none.
class chat_result {
public:
  chat_result(chat_reply r) : v_(std::move(r)) {}
  chat_result(llm_error e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  const chat_reply& value() const { return std::get<0>(v_); }
  const llm_error& error() const { return std::get<1>(v_); }

private:
  std::variant<chat_reply, llm_error> v_;
};

/// An OpenAI-compatible chat-completions client over libcurl: POST
/// {base_url}/chat/completions with the model, the messages and, where the
/// settings ask for it, a JSON schema as `response_format`. A server that
/// refuses the schema (400 naming response_format) is asked again without
/// it, and the answer is then parsed as plain JSON by the caller. 429, 5xx,
/// a dropped connection and a timeout are retried up to max_retries times,
/// after an exponential backoff with jitter, or the server's Retry-After
/// when it is longer (capped at a minute).
class chat_client {
public:
  /// How the client waits between attempts (tests may record instead).
  using sleeper = std::function<void(std::chrono::milliseconds)>;

  explicit chat_client(reasoner_settings settings, sleeper sleep = {});

  chat_result complete(const std::vector<chat_message>& messages,
                       const nlohmann::json* schema = nullptr) const;

  /// The settings' problem, if any ("base_url must be http(s)://...",
  /// "environment variable X is not set"): checked before anything is sent.
  std::optional<std::string> check_settings() const;

private:
  chat_result attempt_all(const std::vector<chat_message>& messages,
                          const nlohmann::json* schema) const;

  reasoner_settings settings_;
  sleeper sleep_;
};

/// The wait a Retry-After value asks for: delta-seconds or an HTTP date;
/// nothing when it is neither (then the backoff applies).
std::optional<std::chrono::milliseconds> retry_after_wait(const std::string& value);

} // namespace paratune
