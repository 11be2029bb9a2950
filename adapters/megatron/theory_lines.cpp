#include "adapters/megatron/theory_lines.hpp"

#include "adapters/megatron/text_scan.hpp"

namespace paratune {

namespace {

// The number after "in billions:" in the parameter-count lines.
bool read_billions(std::string_view s, std::string_view label, std::optional<double>& field) {
  if (!s.starts_with(label)) return false;
  const std::size_t at = s.find("in billions:");
  if (at == std::string_view::npos) return false;
  field = scan::leading_double(s.substr(at + 12));
  return true;
}

// "weight and optimizer=46038.57 MB, activation=1.00 MB, total=2.00 MB"
void read_footprints(std::string_view s, theoretical_memory& t) {
  auto number_after = [&](std::string_view label) -> std::optional<double> {
    const std::size_t at = s.find(label);
    if (at == std::string_view::npos) return std::nullopt;
    return scan::leading_double(s.substr(at + label.size()));
  };
  // Each footprint line replaces the previous one: a later run in the same
  // file may print the weight-only form.
  t.weight_and_optimizer_mb = number_after("weight and optimizer=");
  t.activation_mb = number_after("activation=");
  t.total_mb = number_after("total=");
}

bool parse_parameter_line(std::string_view s, theoretical_memory& t) {
  return read_billions(s, "Number of parameters in transformer", t.transformer_params_billion)
         || read_billions(s, "Number of parameters in embedding", t.embedding_params_billion)
         || read_billions(s, "Number of parameters in most loaded shard",
                          t.most_loaded_shard_billion)
         || read_billions(s, "Number of parameters in other shards", t.other_shards_billion)
         || read_billions(s, "Total number of parameters", t.params_billion);
}

} // namespace

bool parse_theory_line(std::string_view s, theoretical_memory& t) {
  if (s.empty()) return false;
  if (s[0] == 'N' || s[0] == 'T') {
    if (s.starts_with("Theoretical memory footprints")) {
      if (scan::contains(s, "not yet supported")) t.unsupported = true;
      else read_footprints(s, t);
      return true;
    }
    return parse_parameter_line(s, t);
  }
  std::string_view rest = s;
  if (scan::consume(rest, "Activation memory footprint per transformer layer")) {
    const std::size_t colon = rest.find(':');
    if (colon != std::string_view::npos)
      t.activation_per_layer_mb = scan::leading_double(rest.substr(colon + 1));
    return true;
  }
  return false;
}

} // namespace paratune
