#pragma once

#include <array>
#include <map>
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

/// The agents a model can stand behind (the keys of `reasoner: {agents:}`).
enum class reasoning_agent {
  bottleneck_analysis,  ///< the health check and its directive (llm: the model reads the run)
  strategy_generation,  ///< the next trial's configuration
  failure_analysis,     ///< why a trial failed, and whether to retry it
  diagnosis,            ///< ASAP's profile diagnosis and its three proposals (`diagnose --reasoner`)
  dialogue,             ///< `paratune ask`: answers about a session
};

constexpr std::array<reasoning_agent, 5> all_reasoning_agents = {
  reasoning_agent::bottleneck_analysis, reasoning_agent::strategy_generation,
  reasoning_agent::failure_analysis, reasoning_agent::diagnosis, reasoning_agent::dialogue};

/// "bottleneck_analysis", "strategy_generation", ...: the job-file, wire and report forms.
const char* to_string(reasoning_agent a);
bool parse_reasoning_agent(const std::string& text, reasoning_agent& out);

/// Whether this version can put a model behind `a` in mode `m`. Strategy
/// generation and failure analysis take every mode; bottleneck analysis
/// (the health reading), the diagnosis (ASAP's Analyzer and Proposal
/// agents) and the dialogue take builtin or llm: there is nothing to rank,
/// and a job that names hybrid for them is refused rather than silently
/// run without the model.
bool model_supported(reasoning_agent a, reasoner_mode m);

/// A job's (or the daemon's) `reasoner:`: the settings every agent shares,
/// and per-agent overrides (`agents:`). The shared mode applies to the
/// agents that can take it (model_supported) but bottleneck analysis and
/// the diagnosis, which ask a model only when an override names them; the
/// others stay builtin, and an override naming a mode its agent cannot take
/// is refused by check_reasoners.
struct agent_reasoners {
  reasoner_settings shared;
  std::map<reasoning_agent, reasoner_settings> overrides;

  /// The settings `a` runs with.
  reasoner_settings of(reasoning_agent a) const;
  /// Whether any agent asks a model.
  bool any_model() const;
};

/// What is wrong with any agent's settings (check_reasoner_settings, or a
/// mode model_supported refuses), naming the agent; nothing when usable.
std::optional<std::string> check_reasoners(const agent_reasoners& r);

} // namespace paratune
