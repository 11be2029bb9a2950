#include "adapters/diagnosis/history_seed.hpp"

#include <algorithm>
#include <filesystem>

#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"

namespace paratune {

using yaml_fields::optional;
using yaml_fields::required;

namespace {

past_optimization read_record(const YAML::Node& n, const std::string& where) {
  past_optimization r;
  r.id = required<std::string>(n, "id", where);
  const auto at = where + ": " + r.id;
  r.title = required<std::string>(n, "title", at);
  r.platform = required<std::string>(n, "platform", at);
  if (r.platform != "tpu" && r.platform != "gpu")
    throw input_error(at + ": platform must be tpu or gpu");
  r.model = required<std::string>(n, "model", at);
  r.params_billion = required<double>(n, "params_billion", at);
  r.hardware = required<std::string>(n, "hardware", at);
  r.devices = required<int>(n, "devices", at);
  r.bottleneck = required<std::string>(n, "bottleneck", at);
  r.before = required<std::string>(n, "before", at);
  r.after = required<std::string>(n, "after", at);
  r.speedup = required<double>(n, "speedup", at);
  r.impact = required<std::string>(n, "impact", at);
  r.source = optional<std::string>(n, "source", at, "");
  return r;
}

} // namespace

std::vector<past_optimization> load_optimizations(const std::string& path) {
  const auto root = yaml_fields::load_file(path);
  const auto list = root["optimizations"];
  if (!list || !list.IsSequence())
    throw input_error(path + ": expected a list under 'optimizations'");
  std::vector<past_optimization> out;
  for (const auto& n : list)
    out.push_back(read_record(n, path));
  return out;
}

std::vector<past_optimization> load_optimizations_dir(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".yaml")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<past_optimization> out;
  for (const auto& f : files) {
    auto records = load_optimizations(f.string());
    out.insert(out.end(), records.begin(), records.end());
  }
  return out;
}

} // namespace paratune
