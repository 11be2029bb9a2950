#include "adapters/maxtext/maxtext_log_json.hpp"

#include "adapters/maxtext/step_scoring.hpp"
#include "adapters/megatron/utf8_repair.hpp"

namespace paratune {

namespace {

using nlohmann::json;

void put_if(json& j, const char* key, const std::optional<double>& v) {
  if (v)
    j[key] = *v;
}

json step_json(const maxtext_step& s) {
  json values = json::object();
  for (const auto& [k, v] : s.values)
    values[utf8_repair(k)] = utf8_repair(v);
  json j = {{"iteration", s.step}, {"phase", to_string(s.phase)}, {"scored", s.scored()},
            {"line", s.line}, {"values", std::move(values)}};
  if (s.seconds)
    j["elapsed_ms"] = *s.seconds * 1000;
  put_if(j, "tflops_per_device", s.tflops_per_device);
  put_if(j, "tokens_per_s_per_device", s.tokens_per_s_per_device);
  put_if(j, "total_weights", s.total_weights);
  put_if(j, "loss", s.loss);
  put_if(j, "lm_loss", s.lm_loss);
  put_if(j, "perplexity", s.perplexity);
  if (s.live_slices)
    j["live_slices"] = *s.live_slices;
  return j;
}

} // namespace

nlohmann::json to_json(const maxtext_log& log) {
  json j;
  j["format"] = "maxtext";
  j["lines"] = log.lines;
  j["partial"] = log.partial;
  json steps = json::array();
  for (const auto& s : log.steps)
    steps.push_back(step_json(s));
  j["iterations"] = std::move(steps);
  const auto score = score_of(log.steps);
  j["score"] = {{"scored", score.scored}, {"elapsed_ms", score.step_ms},
                {"tflops_per_device", score.tflops_per_device},
                {"tokens_per_s_per_device", score.tokens_per_s_per_device}};
  json errors = json::array();
  for (const auto& e : log.errors)
    errors.push_back({{"kind", to_string(e.kind)}, {"line", e.line},
                      {"message", utf8_repair(e.message)}});
  j["errors"] = std::move(errors);
  j["profiler_sessions"] = log.profiler_sessions;
  j["parameters_billion"] = log.parameters_billion ? json(*log.parameters_billion) : json(nullptr);
  return j;
}

} // namespace paratune
