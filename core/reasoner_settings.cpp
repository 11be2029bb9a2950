#include "core/reasoner_settings.hpp"

#include "core/enum_words.hpp"

namespace paratune {

const char* to_string(reasoner_mode m) {
  switch (m) {
    case reasoner_mode::builtin: return "builtin";
    case reasoner_mode::llm: return "llm";
    case reasoner_mode::hybrid: return "hybrid";
  }
  return "builtin";
}

bool parse_reasoner_mode(const std::string& text, reasoner_mode& out) {
  return parse_word_of(text, {reasoner_mode::builtin, reasoner_mode::llm, reasoner_mode::hybrid},
                       out);
}

std::optional<std::string> check_reasoner_settings(const reasoner_settings& s) {
  if (s.mode == reasoner_mode::builtin)
    return std::nullopt;
  const auto& url = s.base_url;
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    return "reasoner base_url must start with http:// or https://, not '" + url + "'";
  const auto authority = url.substr(url.find("//") + 2);
  if (authority.substr(0, authority.find('/')).find('@') != std::string::npos)
    return "reasoner base_url must not carry credentials: name the key's environment variable "
           "in api_key_env";
  if (s.model.empty())
    return "reasoner model is empty";
  if (!(s.timeout_s > 0) || s.timeout_s > 3600)
    return "reasoner timeout_s must be above 0 and at most 3600";
  if (s.max_retries < 0 || s.max_retries > 10)
    return "reasoner max_retries must be 0 to 10";
  return std::nullopt;
}

const char* to_string(reasoning_agent a) {
  switch (a) {
    case reasoning_agent::bottleneck_analysis: return "bottleneck_analysis";
    case reasoning_agent::strategy_generation: return "strategy_generation";
    case reasoning_agent::failure_analysis: return "failure_analysis";
    case reasoning_agent::diagnosis: return "diagnosis";
    case reasoning_agent::dialogue: return "dialogue";
  }
  return "strategy_generation";
}

bool parse_reasoning_agent(const std::string& text, reasoning_agent& out) {
  return parse_word_of(text,
                       {reasoning_agent::bottleneck_analysis, reasoning_agent::strategy_generation,
                        reasoning_agent::failure_analysis, reasoning_agent::diagnosis,
                        reasoning_agent::dialogue},
                       out);
}

bool model_supported(reasoning_agent a, reasoner_mode m) {
  // Bottleneck analysis, the diagnosis and the dialogue have nothing to
  // rank: a model reads and answers there (llm), never hybrid.
  return m == reasoner_mode::builtin || a == reasoning_agent::strategy_generation
         || a == reasoning_agent::failure_analysis || m == reasoner_mode::llm;
}

namespace {

/// The agents the shared settings reach: those that took a model before
/// bottleneck analysis and the diagnosis could. Those two take one only
/// when `agents:` names them, so a job written before asks the model
/// exactly what it asked then.
bool shared_reaches(reasoning_agent a, reasoner_mode m) {
  if (a == reasoning_agent::bottleneck_analysis || a == reasoning_agent::diagnosis)
    return m == reasoner_mode::builtin;
  return model_supported(a, m);
}

} // namespace

reasoner_settings agent_reasoners::of(reasoning_agent a) const {
  if (const auto o = overrides.find(a); o != overrides.end())
    return o->second;
  if (!shared_reaches(a, shared.mode))
    return {};
  return shared;
}

bool agent_reasoners::any_model() const {
  for (const auto a : all_reasoning_agents)
    if (of(a).mode != reasoner_mode::builtin)
      return true;
  return false;
}

std::optional<std::string> check_reasoners(const agent_reasoners& r) {
  if (auto bad = check_reasoner_settings(r.shared))
    return bad;
  for (const auto& [agent, s] : r.overrides) {
    if (!model_supported(agent, s.mode))
      return std::string("agents: ") + to_string(agent) + ": only builtin "
             + (model_supported(agent, reasoner_mode::llm) ? "or llm " : "")
             + "is available for this agent, not " + to_string(s.mode);
    if (auto bad = check_reasoner_settings(s))
      return std::string("agents: ") + to_string(agent) + ": " + *bad;
  }
  return std::nullopt;
}

} // namespace paratune
