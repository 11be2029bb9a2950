// The `reasoner:` field of a job and of the daemon's config: one endpoint
// for every agent that can take a model, per-agent overrides under
// `agents:` that start from it, and refusals that name the agent.

#include "adapters/config/reasoner_loader.hpp"

#include <gtest/gtest.h>

#include "core/input_error.hpp"

namespace paratune {
namespace {

agent_reasoners read(const std::string& yaml) {
  return read_reasoners(YAML::Load(yaml), "job.yaml");
}

std::string reasoner_refusal(const std::string& yaml) {
  try {
    read(yaml);
  } catch (const input_error& e) {
    return e.what();
  }
  return "accepted";
}

constexpr const char* served = R"({mode: llm, base_url: "http://127.0.0.1:8000/v1",
  model: qwen2.5-7b-instruct, api_key_env: OPENAI_API_KEY, timeout_s: 20)";

TEST(reasoner_loader, a_word_is_the_mode_of_every_agent_that_can_take_a_model) {
  const auto r = read("builtin");
  EXPECT_FALSE(r.any_model());
  const auto shared = read(std::string(served) + "}");
  EXPECT_EQ(shared.of(reasoning_agent::strategy_generation).mode, reasoner_mode::llm);
  EXPECT_EQ(shared.of(reasoning_agent::failure_analysis).mode, reasoner_mode::llm);
  EXPECT_EQ(shared.of(reasoning_agent::failure_analysis).model, "qwen2.5-7b-instruct");
  // These take a model only where `agents:` names them.
  EXPECT_EQ(shared.of(reasoning_agent::bottleneck_analysis).mode, reasoner_mode::builtin);
  EXPECT_EQ(shared.of(reasoning_agent::diagnosis).mode, reasoner_mode::builtin);
}

TEST(reasoner_loader, an_agents_override_starts_from_the_shared_settings) {
  const auto r = read(std::string(served) + R"(, agents: {
      strategy_generation: {mode: hybrid, model: llama-3.1-70b, timeout_s: 90},
      failure_analysis: builtin}})");
  const auto gen = r.of(reasoning_agent::strategy_generation);
  EXPECT_EQ(gen.mode, reasoner_mode::hybrid);
  EXPECT_EQ(gen.model, "llama-3.1-70b");
  EXPECT_EQ(gen.base_url, "http://127.0.0.1:8000/v1");  // inherited
  EXPECT_EQ(gen.api_key_env, "OPENAI_API_KEY");          // inherited
  EXPECT_DOUBLE_EQ(gen.timeout_s, 90);
  EXPECT_EQ(r.of(reasoning_agent::failure_analysis).mode, reasoner_mode::builtin);
  EXPECT_TRUE(r.any_model());
}

TEST(reasoner_loader, a_builtin_job_can_put_a_model_behind_one_agent) {
  const auto r = read(R"({mode: builtin, agents: {failure_analysis: {mode: llm,
      base_url: "http://127.0.0.1:8000/v1", model: qwen2.5-7b-instruct}}})");
  EXPECT_EQ(r.of(reasoning_agent::strategy_generation).mode, reasoner_mode::builtin);
  EXPECT_EQ(r.of(reasoning_agent::failure_analysis).mode, reasoner_mode::llm);
}

TEST(reasoner_loader, the_shared_model_reaches_the_diagnosis_and_health_only_when_named) {
  // A job written before they could take a model asks it what it asked then.
  const auto shared = read(std::string(served) + "}");
  EXPECT_EQ(shared.of(reasoning_agent::strategy_generation).mode, reasoner_mode::llm);
  EXPECT_EQ(shared.of(reasoning_agent::diagnosis).mode, reasoner_mode::builtin);
  const auto named = read(std::string(served)
                          + ", agents: {bottleneck_analysis: llm, diagnosis: llm}}");
  EXPECT_EQ(named.of(reasoning_agent::bottleneck_analysis).mode, reasoner_mode::llm);
  EXPECT_EQ(named.of(reasoning_agent::diagnosis).mode, reasoner_mode::llm);
  EXPECT_EQ(named.of(reasoning_agent::diagnosis).model, "qwen2.5-7b-instruct");
}

TEST(reasoner_loader, refusals_name_the_file_the_field_and_the_agent) {
  EXPECT_EQ(reasoner_refusal(std::string(served) + ", agents: {diagnosis: hybrid}}"),
            "job.yaml: field 'reasoner': agents: diagnosis: only builtin or llm is available "
            "for this agent, not hybrid");
  EXPECT_EQ(reasoner_refusal(std::string(served) + ", agents: {bottleneck_analysis: hybrid}}"),
            "job.yaml: field 'reasoner': agents: bottleneck_analysis: only builtin or llm is "
            "available for this agent, not hybrid");
  EXPECT_EQ(reasoner_refusal(std::string(served) + ", agents: {planner: llm}}"),
            "job.yaml: field 'reasoner': agents: unknown agent 'planner' (bottleneck_analysis, "
            "strategy_generation, failure_analysis, diagnosis, dialogue)");
  EXPECT_EQ(reasoner_refusal("{mode: builtin, agents: {failure_analysis: llm}}"),
            "job.yaml: field 'reasoner': agents: failure_analysis: reasoner base_url must start "
            "with http:// or https://, not ''");
  EXPECT_EQ(reasoner_refusal(std::string(served) + ", agents: {failure_analysis: {agents: {}}}}"),
            "job.yaml:2: reasoner: agents: failure_analysis: unknown key 'agents' (known: "
            "mode, base_url, model, api_key_env, timeout_s, max_retries, structured_output)");
  EXPECT_EQ(reasoner_refusal(std::string(served) + ", agents: [failure_analysis]}"),
            "job.yaml: field 'reasoner': agents: expected a mapping of agent -> builtin, llm, "
            "hybrid or settings");
  EXPECT_EQ(reasoner_refusal("{model: x}"), "job.yaml: field 'reasoner': missing field 'mode' (builtin, "
                                   "llm or hybrid)");
  EXPECT_EQ(reasoner_refusal(std::string(served) + ", agents: {failure_analysis: {timeout_s: 0}}}"),
            "job.yaml: field 'reasoner': agents: failure_analysis: line 2: field 'timeout_s': 0 is "
            "outside the allowed range 0.1..3600");
}

} // namespace
} // namespace paratune
