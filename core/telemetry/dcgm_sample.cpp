#include "core/telemetry/dcgm_sample.hpp"

#include <charconv>
#include <cmath>
#include <utility>

namespace paratune {

namespace {

/// dcgm-exporter's field names for the metrics paratune reads.
constexpr std::pair<std::string_view, trial_metric> field_table[] = {
  {"DCGM_FI_DEV_GPU_UTIL", trial_metric::gpu_utilization_pct},
  {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", trial_metric::tensor_active},
  {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", trial_metric::graphics_engine_active},
  {"DCGM_FI_DEV_FB_USED", trial_metric::framebuffer_used_mib},
  {"DCGM_FI_DEV_FB_FREE", trial_metric::framebuffer_free_mib},
  {"DCGM_FI_DEV_POWER_USAGE", trial_metric::power_w},
  {"DCGM_FI_DEV_SM_CLOCK", trial_metric::sm_clock_mhz},
};

std::optional<int> gpu_index(const prometheus_sample& s) {
  const std::string* text = s.label("gpu");
  if (!text || text->empty())
    return std::nullopt;
  int index = -1;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), index);
  if (ec != std::errc() || end != text->data() + text->size() || index < 0
      || index > max_gpu_index)
    return std::nullopt;
  return index;
}

void copy_label(const prometheus_sample& s, std::string_view name, std::string& out) {
  if (const auto* v = s.label(name); v && out.empty())
    out = *v;
}

} // namespace

std::optional<trial_metric> dcgm_field_metric(std::string_view field) {
  for (const auto& [name, metric] : field_table)
    if (name == field)
      return metric;
  return std::nullopt;
}

const prometheus_metric_filter& dcgm_fields() {
  static const prometheus_metric_filter names = [] {
    prometheus_metric_filter out;
    for (const auto& [name, _] : field_table)
      out.push_back(name);
    return out;
  }();
  return names;
}

std::optional<double> dcgm_gpu_sample::value(trial_metric m) const {
  const auto it = values.find(m);
  return it == values.end() ? std::nullopt : std::optional<double>(it->second);
}

std::vector<dcgm_gpu_sample> dcgm_gpu_samples(const prometheus_parse& scrape) {
  std::map<int, dcgm_gpu_sample> by_gpu;
  for (const auto& s : scrape.samples) {
    const auto metric = dcgm_field_metric(s.metric);
    const auto index = gpu_index(s);
    if (!metric || !index || s.label("GPU_I_ID") || !std::isfinite(s.value))
      continue;
    auto& g = by_gpu[*index];
    g.gpu = *index;
    copy_label(s, "UUID", g.uuid);
    copy_label(s, "modelName", g.model);
    copy_label(s, "Hostname", g.host);
    g.values[*metric] = s.value;
  }
  std::vector<dcgm_gpu_sample> out;
  for (auto& [_, g] : by_gpu)
    out.push_back(std::move(g));
  return out;
}

} // namespace paratune
