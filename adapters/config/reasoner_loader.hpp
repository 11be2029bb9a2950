#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "core/reasoner_settings.hpp"

namespace paratune {

/// Reads a `reasoner:` field (a job's, or the daemon config's):
///
///   reasoner: builtin
///   reasoner: {mode: hybrid, base_url: "http://127.0.0.1:8000/v1", model: NAME,
///              api_key_env: OPENAI_API_KEY, timeout_s: 60, max_retries: 3,
///              structured_output: true,
///              agents: {failure_analysis: llm,
///                       strategy_generation: {mode: llm, model: OTHER}}}
///
/// An agent's override starts from the shared settings and replaces the
/// keys it names. Throws input_error naming `where`, the field and, for an
/// override, the agent.
agent_reasoners read_reasoners(const YAML::Node& node, const std::string& where);

/// The model behind ASAP's Analyzer and Proposal agent, from a `reasoner:`
/// field in the same form (its `agents: {diagnosis: ...}` override when it
/// names one). Throws input_error naming `where` for a mode those agents
/// cannot take (builtin and llm only) or settings that cannot work; the
/// caller checks the address and the key (chat_client::check_settings).
reasoner_settings read_diagnosis_reasoner(const YAML::Node& node, const std::string& where);

} // namespace paratune
