#include "adapters/megatron/megatron_log_json.hpp"

#include "adapters/megatron/utf8_repair.hpp"

namespace paratune {

namespace {

using nlohmann::json;

json text(std::string_view s) { return utf8_repair(s); }

template <class T>
json or_null(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

json values_json(const line_values& values) {
  json out = json::object();
  for (const auto& [k, v] : values) out[utf8_repair(k)] = text(v);
  return out;
}

json iteration_json(const iteration_record& r) {
  json j = {{"iteration", r.iteration}, {"train_iters", r.train_iters},
            {"elapsed_ms", r.elapsed_ms}, {"line", r.line}, {"values", values_json(r.values)}};
  if (r.tflops_per_gpu) j["tflops_per_gpu"] = *r.tflops_per_gpu;
  if (const auto stamp = r.timestamp()) j["timestamp"] = text(*stamp);
  return j;
}

json memory_json(const memory_record& r) {
  json j = {{"rank", r.rank}, {"iteration", r.iteration}, {"allocated_mib", r.allocated_mib},
            {"max_allocated_mib", r.max_allocated_mib}, {"reserved_mib", r.reserved_mib},
            {"max_reserved_mib", r.max_reserved_mib}, {"line", r.line}};
  if (r.device_used_mib) j["device_used_mib"] = *r.device_used_mib;
  return j;
}

json theory_json(const theoretical_memory& t) {
  return {{"weight_and_optimizer_mb", or_null(t.weight_and_optimizer_mb)},
          {"activation_mb", or_null(t.activation_mb)},
          {"total_mb", or_null(t.total_mb)},
          {"params_billion", or_null(t.params_billion)},
          {"most_loaded_shard_billion", or_null(t.most_loaded_shard_billion)},
          {"transformer_params_billion", or_null(t.transformer_params_billion)},
          {"embedding_params_billion", or_null(t.embedding_params_billion)},
          {"other_shards_billion", or_null(t.other_shards_billion)},
          {"activation_per_layer_mb", or_null(t.activation_per_layer_mb)},
          {"unsupported", t.unsupported}};
}

json timers_json(const timer_report& r) {
  json timers = json::array();
  for (const auto& t : r.timers) {
    json v = {{"name", text(t.name)}, {"max_ms", t.max_ms}};
    if (t.min_ms) v["min_ms"] = *t.min_ms;
    timers.push_back(std::move(v));
  }
  return {{"iteration", r.iteration}, {"line", r.line}, {"timers", std::move(timers)}};
}

json layout_json(const std::optional<parallel_layout>& l) {
  if (!l) return nullptr;
  return {{"world_size", or_null(l->world_size)}, {"data_parallel", or_null(l->data_parallel)},
          {"context_parallel", or_null(l->context_parallel)},
          {"tensor_parallel", or_null(l->tensor_parallel)},
          {"pipeline_parallel", or_null(l->pipeline_parallel)}, {"line", l->line}};
}

template <class T, class Fn>
json array_of(const std::vector<T>& items, Fn&& fn) {
  json out = json::array();
  for (const auto& x : items) out.push_back(fn(x));
  return out;
}

} // namespace

nlohmann::json to_json(const megatron_log& log) {
  json args = json::object();
  for (const auto& [k, v] : log.args) args[utf8_repair(k)] = text(v);
  json j;
  j["lines"] = log.lines;
  j["partial"] = log.partial;
  j["iterations"] = array_of(log.iterations, iteration_json);
  j["memory"] = array_of(log.memory, memory_json);
  j["errors"] = array_of(log.errors, [](const log_error& e) {
    return json{{"kind", to_string(e.kind)}, {"line", e.line}, {"message", text(e.message)}};
  });
  j["args"] = std::move(args);
  j["theoretical_memory"] = theory_json(log.theory);
  j["timers"] = array_of(log.timers, timers_json);
  j["layout"] = layout_json(log.layout);
  j["num_microbatches"] = or_null(log.num_microbatches);
  j["validations"] = array_of(log.validations, [](const validation_record& v) {
    return json{{"iteration", v.iteration}, {"line", v.line}, {"values", values_json(v.values)}};
  });
  j["markers"] = array_of(log.markers, [](const datetime_marker& m) {
    return json{{"name", text(m.name)}, {"timestamp", text(m.timestamp)}, {"line", m.line}};
  });
  j["parameters"] = array_of(log.parameters, [](const rank_parameters& p) {
    return json{{"tensor_rank", p.tensor_rank}, {"pipeline_rank", p.pipeline_rank},
                {"parameters", p.parameters}};
  });
  j["exit_reason"] = log.exit_reason ? text(*log.exit_reason) : json(nullptr);
  return j;
}

} // namespace paratune
