#include "adapters/llm/chat_client.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <thread>

#include "adapters/http/curl_easy.hpp"

namespace paratune {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds first_backoff{500};
constexpr milliseconds longest_wait{60000};
constexpr std::size_t max_answer_bytes = std::size_t{8} << 20;

std::string endpoint_of(const reasoner_settings& s) {
  std::string base = s.base_url;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  return base + "/chat/completions";
}

nlohmann::json request_body(const reasoner_settings& s, const std::vector<chat_message>& messages,
                            const nlohmann::json* schema) {
  nlohmann::json body{{"model", s.model}, {"temperature", 0}, {"messages", nlohmann::json::array()}};
  for (const auto& m : messages)
    body["messages"].push_back({{"role", m.role}, {"content", m.content}});
  if (schema)
    body["response_format"] = {
        {"type", "json_schema"},
        {"json_schema", {{"name", "paratune_answer"}, {"strict", true}, {"schema", *schema}}}};
  return body;
}

/// Exponential backoff with jitter: 0.5-1.0 of first_backoff x 2^attempt.
milliseconds backoff(int attempt) {
  static thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  const double ms = double(first_backoff.count()) * double(1 << std::min(attempt, 6)) * jitter(rng);
  return milliseconds(long(ms));
}

bool retryable_transport(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
      return true;
    default:
      return false;
  }
}

/// A 400 whose words name the schema: the server cannot do structured output.
bool refuses_schema(const http_post_answer& a) {
  return a.status == 400 && a.body.find("response_format") != std::string::npos;
}

/// The reply's text and token counts; an llm_error when it is not a chat
/// completion.
std::variant<chat_reply, llm_error> parse_completion(const std::string& body,
                                                     const std::string& where) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  const auto bad = [&](const std::string& why) {
    return llm_error{llm_failure::malformed, where + ": " + why, 0};
  };
  if (j.is_discarded() || !j.is_object())
    return bad("the answer is not a JSON object");
  const auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty())
    return bad("the answer has no choices");
  const auto& message = (*choices)[0].value("message", nlohmann::json::object());
  const auto content = message.find("content");
  if (content == message.end() || !content->is_string())
    return bad("the first choice has no message content");
  chat_reply r;
  r.content = content->get<std::string>();
  if (auto usage = j.find("usage"); usage != j.end() && usage->is_object()) {
    const auto count = [&](const char* key) {
      auto v = usage->find(key);
      return v != usage->end() && v->is_number_integer() ? int(std::max<int64_t>(0, v->get<int64_t>()))
                                                         : 0;
    };
    r.prompt_tokens = count("prompt_tokens");
    r.completion_tokens = count("completion_tokens");
  }
  return r;
}

} // namespace

std::string_view to_string(llm_failure kind) {
  switch (kind) {
    case llm_failure::invalid_settings: return "invalid_settings";
    case llm_failure::unreachable: return "unreachable";
    case llm_failure::timed_out: return "timed_out";
    case llm_failure::rate_limited: return "rate_limited";
    case llm_failure::server_error: return "server_error";
    case llm_failure::rejected: return "rejected";
    case llm_failure::malformed: return "malformed";
  }
  return "malformed";
}

std::optional<milliseconds> retry_after_wait(const std::string& value) {
  if (value.empty())
    return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (value.size() > 6)
      return longest_wait;
    return milliseconds(std::stol(value) * 1000);
  }
  const time_t at = curl_getdate(value.c_str(), nullptr);
  if (at < 0)
    return std::nullopt;
  const time_t now = std::time(nullptr);
  return milliseconds(std::max<long>(0, long(at - now)) * 1000);
}

chat_client::chat_client(reasoner_settings settings, sleeper sleep)
  : settings_(std::move(settings)), sleep_(std::move(sleep)) {
  if (!sleep_)
    sleep_ = [](milliseconds ms) { std::this_thread::sleep_for(ms); };
}

std::optional<std::string> chat_client::check_settings() const {
  auto s = settings_;
  s.mode = reasoner_mode::llm;  // a client is only made to be asked
  if (auto bad = check_reasoner_settings(s))
    return bad;
  if (!settings_.api_key_env.empty() && !std::getenv(settings_.api_key_env.c_str()))
    return "environment variable " + settings_.api_key_env + " (reasoner api_key_env) is not set";
  return std::nullopt;
}

chat_result chat_client::complete(const std::vector<chat_message>& messages,
                                  const nlohmann::json* schema) const {
  auto r = attempt_all(messages, schema);
  if (r.ok() || settings_.api_key_env.empty())
    return r;
  // A server's words are untrusted: one that echoes the request must not
  // put the key into an error message.
  auto e = r.error();
  const char* key = std::getenv(settings_.api_key_env.c_str());
  for (std::size_t at; key && *key && (at = e.message.find(key)) != std::string::npos;)
    e.message.replace(at, std::strlen(key), "[redacted]");
  return e;
}

chat_result chat_client::attempt_all(const std::vector<chat_message>& messages,
                                     const nlohmann::json* schema) const {
  if (auto bad = check_settings())
    return llm_error{llm_failure::invalid_settings, *bad, 0};
  const auto started = std::chrono::steady_clock::now();
  const std::string where = "POST " + endpoint_of(settings_);
  http_post_request request;
  request.url = endpoint_of(settings_);
  request.headers.push_back("Accept: application/json");
  if (!settings_.api_key_env.empty())
    request.headers.push_back(std::string("Authorization: Bearer ")
                              + std::getenv(settings_.api_key_env.c_str()));
  http_get_options options;
  options.total_timeout = milliseconds(long(settings_.timeout_s * 1000));
  options.connect_timeout = std::min(options.total_timeout, milliseconds(5000));
  options.max_body_bytes = max_answer_bytes;
  options.user_agent = "paratune-reasoner";
  const nlohmann::json* asked_schema = settings_.structured_output ? schema : nullptr;
  double waited = 0;
  llm_error last{llm_failure::unreachable, where + ": no attempt", 0};
  for (int attempt = 0; attempt <= settings_.max_retries; ++attempt) {
    auto curl = make_curl_handle();
    if (!curl)
      return llm_error{llm_failure::unreachable, "cannot create a libcurl handle", attempt};
    request.body = request_body(settings_, messages, asked_schema).dump();
    const auto a = http_post(curl.get(), request, options);
    std::optional<milliseconds> wait;
    if (a.code == CURLE_OK && a.status >= 200 && a.status < 300) {
      auto parsed = parse_completion(a.body, where);
      if (parsed.index() == 1) {
        auto e = std::get<1>(parsed);
        e.attempts = attempt + 1;
        return e;
      }
      auto r = std::get<0>(std::move(parsed));
      r.attempts = attempt + 1;
      r.structured = asked_schema != nullptr;
      r.waited_ms = waited;
      r.latency_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now()
                                                               - started).count();
      return r;
    }
    if (a.code == CURLE_OK && refuses_schema(a) && asked_schema) {
      asked_schema = nullptr;  // plain JSON from here on; not counted as a retry
      --attempt;
      continue;
    }
    if (a.code != CURLE_OK) {
      if (a.overflowed)
        return llm_error{llm_failure::malformed,
                         where + ": answer larger than " + std::to_string(max_answer_bytes)
                             + " bytes", attempt + 1};
      const bool timeout = a.code == CURLE_OPERATION_TIMEDOUT;
      last = {timeout ? llm_failure::timed_out : llm_failure::unreachable,
              where + ": " + a.error, attempt + 1};
      if (!retryable_transport(a.code))
        return last;
    } else if (a.status == 429 || a.status >= 500) {
      last = {a.status == 429 ? llm_failure::rate_limited : llm_failure::server_error,
              where + ": HTTP " + std::to_string(a.status), attempt + 1};
      wait = retry_after_wait(a.retry_after);
    } else {
      return llm_error{llm_failure::rejected,
                       where + ": HTTP " + std::to_string(a.status) + ": "
                           + a.body.substr(0, 200), attempt + 1};
    }
    if (attempt == settings_.max_retries)
      break;
    const auto pause = std::min(longest_wait, std::max(backoff(attempt), wait.value_or(milliseconds(0))));
    waited += double(pause.count());
    sleep_(pause);
  }
  return last;
}

} // namespace paratune
