#pragma once

#include <optional>
#include <string>

namespace paratune {

/// Who decides an agent's next step (the job's or the daemon's `reasoner:`).
enum class reasoner_mode {
  builtin,  ///< the deterministic reasoner (core/tuning): the offline default
  llm,      ///< a language model proposes; guardrails check; builtin decides on refusal
  hybrid,   ///< builtin generates the candidates; the model ranks and explains them
};

/// "builtin", "llm", "hybrid": the job-file and wire forms.
const char* to_string(reasoner_mode m);
bool parse_reasoner_mode(const std::string& text, reasoner_mode& out);

/// Where a language model is served: any OpenAI-compatible chat-completions
/// endpoint (vLLM, llama.cpp's server, Ollama, OpenAI). The API key itself
/// is never held here, stored or shown: only the name of the environment
/// variable that holds it.
struct reasoner_settings {
  reasoner_mode mode = reasoner_mode::builtin;
  std::string base_url;      ///< "http://127.0.0.1:8000/v1"
  std::string model;         ///< "qwen2.5-7b-instruct"
  std::string api_key_env;   ///< "OPENAI_API_KEY"; empty: no key is sent
  double timeout_s = 60;     ///< one request, connection included
  int max_retries = 3;       ///< on 429, 5xx, a dropped or timed-out connection
  bool structured_output = true;  ///< ask for a JSON schema (response_format)
};

/// What is wrong with the settings of a model-backed mode (a base_url that
/// is not http(s) or carries credentials, no model, a timeout that is not
/// positive, retries outside 0..10); nothing when they are usable or the
/// mode is builtin. The key's variable is checked where it is read.
std::optional<std::string> check_reasoner_settings(const reasoner_settings& s);

} // namespace paratune
