#include "adapters/config/reasoner_loader.hpp"

#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"

namespace paratune {

namespace {

using yaml_fields::optional;
using yaml_fields::optional_int;

const char* const mapping_example =
  "{mode: hybrid, base_url: \"http://127.0.0.1:8000/v1\", model: NAME}";

reasoner_mode mode_of(const std::string& word, const std::string& field) {
  reasoner_mode m = reasoner_mode::builtin;
  if (!parse_reasoner_mode(word, m))
    throw input_error(field + ": mode: expected builtin, llm or hybrid, got '" + word + "'");
  return m;
}

// The keys of one agent's settings; the top level may also hold `agents`.
constexpr std::string_view settings_keys[] = {"mode", "base_url", "model", "api_key_env",
                                              "timeout_s", "max_retries", "structured_output"};
constexpr std::string_view top_settings_keys[] = {"mode", "base_url", "model", "api_key_env",
                                                  "timeout_s", "max_retries",
                                                  "structured_output", "agents"};

/// `node` (a word or a mapping) over `base`: the keys it names replace
/// base's. `agents` is allowed only at the top. `file` and `inside` place
/// an unknown key (yaml_fields::refuse_unknown_keys).
reasoner_settings read_settings(const YAML::Node& node, const std::string& field,
                                reasoner_settings base, bool top, const std::string& file,
                                const std::string& inside) {
  if (node.IsScalar()) {
    base.mode = mode_of(node.as<std::string>(), field);
    return base;
  }
  if (!node.IsMap())
    throw input_error(field + ": expected builtin, llm, hybrid or a mapping such as "
                      + mapping_example);
  if (top)
    yaml_fields::refuse_unknown_keys(node, top_settings_keys, file, inside);
  else
    yaml_fields::refuse_unknown_keys(node, settings_keys, file, inside);
  if (top && !node["mode"])
    throw input_error(field + ": missing field 'mode' (builtin, llm or hybrid)");
  if (node["mode"])
    base.mode = mode_of(yaml_fields::required<std::string>(node, "mode", field), field);
  base.base_url = optional<std::string>(node, "base_url", field, base.base_url);
  base.model = optional<std::string>(node, "model", field, base.model);
  base.api_key_env = optional<std::string>(node, "api_key_env", field, base.api_key_env);
  base.timeout_s = yaml_fields::optional_real(node, "timeout_s", field, 0.1, 3600, base.timeout_s);
  base.max_retries = optional_int(node, "max_retries", field, {0, 10}, base.max_retries);
  base.structured_output =
    yaml_fields::optional_flag(node, "structured_output", field, base.structured_output);
  return base;
}

} // namespace

agent_reasoners read_reasoners(const YAML::Node& node, const std::string& where) {
  const auto field = where + ": field 'reasoner'";
  agent_reasoners r;
  r.shared = read_settings(node, field, {}, true, where, "reasoner");
  if (node.IsMap() && node["agents"]) {
    const auto agents = node["agents"];
    if (!agents.IsMap())
      throw input_error(field + ": agents: expected a mapping of agent -> builtin, llm, hybrid "
                                "or settings");
    for (const auto& kv : agents) {
      const auto name = kv.first.as<std::string>();
      reasoning_agent agent{};
      if (!parse_reasoning_agent(name, agent))
        throw input_error(field + ": agents: unknown agent '" + name
                          + "' (bottleneck_analysis, strategy_generation, failure_analysis, "
                            "diagnosis, dialogue)");
      r.overrides[agent] =
        read_settings(kv.second, field + ": agents: " + name, r.shared, false, where,
                      "reasoner: agents: " + name);
    }
  }
  if (auto bad = check_reasoners(r))
    throw input_error(field + ": " + *bad);
  return r;
}

reasoner_settings read_diagnosis_reasoner(const YAML::Node& node, const std::string& where) {
  const auto all = read_reasoners(node, where);
  const auto named = all.overrides.find(reasoning_agent::diagnosis);
  const auto settings = named != all.overrides.end() ? named->second : all.shared;
  if (!model_supported(reasoning_agent::diagnosis, settings.mode))
    throw input_error(where + ": the Analyzer and the Proposal agent take builtin or llm, not "
                      + to_string(settings.mode));
  if (auto bad = check_reasoner_settings(settings))
    throw input_error(where + ": " + *bad);
  return settings;
}

} // namespace paratune
