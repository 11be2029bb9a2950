#include "validation/megatron_ci_table.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "core/megatron_rules.hpp"
#include "core/perf/perf_model.hpp"
#include "validation/csv_table.hpp"
#include "validation/reference_specs.hpp"

namespace paratune {

namespace {

constexpr const char* file_name = "megatron_ci_golden_values_summary.csv";

int int_or(const csv_row& r, const std::string& column, int fallback) {
  return r.empty(column) ? fallback : r.integer(column);
}

bool flag(const csv_row& r, const std::string& column) { return r.text(column) == "true"; }

// GPUs of the run: "1x8|2x4" runs in both layouts, 8 GPUs either way.
int gpus_of(const std::string& layout) {
  const auto first = layout.substr(0, layout.find('|'));
  const auto x = first.find('x');
  if (x == std::string::npos)
    return 0;
  return std::stoi(first.substr(0, x)) * std::stoi(first.substr(x + 1));
}

// Features a test's name announces that the configuration keys cannot
// express: their memory is not what the model describes.
const std::pair<const char*, const char*> unmodelled[] = {
  {"grpo", "RL (GRPO) test: the generation engine's memory"},
  {"fsdp", "FSDP/ZeRO-3 sharding not modelled"},
  {"offloading", "activation offloading not modelled"},
  {"muon", "Muon optimizer not modelled"},
  {"cudagraph", "CUDA graphs' static buffers not modelled"},
};

// Why a row cannot be expressed, or "".
std::string skip_reason(const csv_row& r) {
  for (const auto& [part, reason] : unmodelled)
    if (r.text("test_case").find(part) != std::string::npos)
      return reason;
  if (r.text("hw") != "h100" && r.text("hw") != "a100")
    return "device " + r.text("hw") + " not in the cluster catalog";
  if (gpus_of(r.text("nodes_x_gpus_per_node")) == 0)
    return "GPU count not in the recipes (release test)";
  if (r.empty("tensor-model-parallel-size") || r.empty("pipeline-model-parallel-size"))
    return "TP or PP not stated";
  return "";
}

// The functional tests' tokenizers: GPT-2 BPE (50257) for the GPT and MoE
// cases, Mixtral's (32000) for the Mixtral cases.
model_spec model_of(const csv_row& r) {
  const bool swiglu = flag(r, "swiglu");
  const int hidden = r.integer("hidden-size");
  model_spec m = reference::gpt(r.integer("num-layers"), hidden, r.integer("num-attention-heads"),
                                r.text("family") == "mixtral" ? 32000 : 50257);
  m.name = r.text("test_case");
  m.swiglu = swiglu;
  m.ffn = int_or(r, "ffn-hidden-size", swiglu ? int(8.0 * hidden / 3 / 64) * 64 : 4 * hidden);
  m.kv_heads = int_or(r, "num-query-groups", m.heads);
  m.tied_embeddings = !flag(r, "untie-embeddings-and-output-weights");
  m.experts = int_or(r, "num-experts", 0);
  m.topk = m.experts > 0 ? int_or(r, "moe-router-topk", 2) : 0;
  m.moe_ffn = m.experts > 0 ? m.ffn : 0;
  // The column names rope where the test passes it; without it Megatron-LM
  // builds its default learned table.
  if (r.text("position-embedding-type") == "rope")
    m.position = position_embedding::rope;
  // The summary has no bias column: the GPT tests run with Megatron-LM's
  // default biases, the MoE and Mixtral ones pass --disable-bias-linear
  // (paratune's reading before the model carried biases).
  m.bias_linear = m.experts == 0;
  return m;
}

training_config config_of(const csv_row& r, const model_spec& m, int gpus) {
  training_config c;
  c.tp = r.integer("tensor-model-parallel-size");
  c.pp = r.integer("pipeline-model-parallel-size");
  c.cp = int_or(r, "context-parallel-size", 1);
  c.ep = int_or(r, "expert-model-parallel-size", 1);
  c.mbs = r.integer("micro-batch-size");
  c.seq = r.integer("seq-length");
  c.gbs = int_or(r, "global-batch-size", c.mbs * std::max(1, c.data_parallel(gpus)));
  if (!r.empty("num-layers-per-virtual-pipeline-stage"))
    c.vpp = m.layers / c.pp / r.integer("num-layers-per-virtual-pipeline-stage");
  c.sp = flag(r, "sequence-parallel");
  c.dist_opt = flag(r, "use-distributed-optimizer");
  c.overlap_grad = flag(r, "overlap-grad-reduce");
  c.overlap_param = flag(r, "overlap-param-gather");
  if (!r.empty("recompute-granularity") && !parse_recompute(r.text("recompute-granularity"),
                                                              c.recompute))
    c.recompute = recompute_mode::none;
  if (c.recompute == recompute_mode::full) {
    c.recompute_block = r.text("recompute-method") == "block";
    const int layers = int_or(r, "recompute-num-layers", 1);
    c.recompute_layers = c.recompute_block || layers > 1 ? layers : 0;
  }
  return c;
}

megatron_ci_row row_of(const csv_row& r) {
  megatron_ci_row row;
  row.hw = r.text("hw");
  row.run.gpus = gpus_of(r.text("nodes_x_gpus_per_node"));
  row.run.model = model_of(r);
  row.run.config = config_of(r, row.run.model, row.run.gpus);
  row.run.label = r.text("test_case") + " (" + row.hw + ")";
  row.prec = !r.empty("fp8-format") ? precision::fp8
             : flag(r, "fp16")      ? precision::fp16
                                    : precision::bf16;
  row.flash_attention = r.text("attention-backend") != "unfused"
                        && r.text("transformer-impl") != "local";
  row.peak_allocated_gib = r.number("peak_mem_max_allocated_GiB");
  return row;
}

// One count per reason, in order of first appearance.
void add_skip_reasons(const std::vector<skipped_row>& skipped, table_validation& t) {
  std::vector<std::pair<std::string, int>> reasons;
  for (const auto& s : skipped) {
    auto it = std::find_if(reasons.begin(), reasons.end(),
                           [&](const auto& r) { return r.first == s.reason; });
    if (it == reasons.end())
      reasons.emplace_back(s.reason, 1);
    else
      ++it->second;
  }
  for (const auto& [reason, count] : reasons)
    t.stats.push_back({"skipped: " + reason, double(count), " rows", false, true, 0});
}

} // namespace

double predicted_allocated_mib(const memory_breakdown& m) { return m.total_mib - m.overhead_mib; }

megatron_ci_table read_megatron_ci_table(const std::string& data_dir) {
  megatron_ci_table out;
  const auto path = std::filesystem::path(data_dir) / "perf" / file_name;
  for (const auto& r : read_csv_table(path.string())) {
    const auto reason = skip_reason(r);
    if (reason.empty())
      out.rows.push_back(row_of(r));
    else
      out.skipped.push_back({r.text("test_case") + " (" + r.text("hw") + ")", reason});
  }
  return out;
}

namespace {

perf_prediction predict_row(const megatron_ci_row& r) {
  perf_calibration cal;
  cal.flash_attention = r.flash_attention;
  const auto cluster = r.hw == "h100" ? reference::dgx_h100() : reference::dgx_a100();
  return predict(r.run.model, cluster, r.run.gpus, r.run.config, r.prec, cal);
}

// numpy's default percentile: linear between the two nearest ranks.
double percentile(const std::vector<double>& sorted, double q) {
  const double at = q * double(sorted.size() - 1);
  const auto below = size_t(at);
  if (below + 1 >= sorted.size())
    return sorted.back();
  return sorted[below] + (at - double(below)) * (sorted[below + 1] - sorted[below]);
}

} // namespace

memory_error_band measure_memory_error(const megatron_ci_table& table) {
  std::vector<double> errors;
  for (const auto& r : table.rows)
    if (r.peak_allocated_gib >= band_min_measured_gib)
      errors.push_back(r.peak_allocated_gib * 1024 / predict_row(r).peak_memory_mib - 1);
  if (errors.empty())
    return {};
  std::sort(errors.begin(), errors.end());
  return {percentile(errors, 0.1), percentile(errors, 0.9), int(errors.size())};
}

table_validation validate_megatron_ci(const megatron_ci_table& table) {
  table_validation t{"megatron_ci",
                     "Megatron-LM golden values: peak allocated memory (H100, A100)", {}, {}};
  std::vector<compared_value> memory;
  int fits = 0;
  for (const auto& r : table.rows) {
    const auto p = predict_row(r);
    const double predicted = predicted_allocated_mib(p.stages.back()) / 1024;
    validation_row row{r.run.label, {{"peak allocated (GiB)", predicted, r.peak_allocated_gib}},
                       "", p.fits};
    row.note = fmt::format("ran, predicted {} (peak {:.0f} MiB of {:.0f})",
                           memory_verdict_words(p.memory), p.peak_memory_mib,
                           p.memory_limit_mib);
    fits += p.fits;
    memory.push_back(row.values.front());
    t.rows.push_back(std::move(row));
  }
  const double n = table.rows.size();
  t.stats.push_back({"runs predicted to fit", double(fits), fmt::format("/{:.0f}", n), true,
                     false, n});
  t.stats.push_back({"memory MAPE", mape(memory), "%", true, true, 15});
  const auto band = measure_memory_error(table);
  t.stats.push_back({fmt::format("peak error band, 10th percentile ({} runs >= {:.0f} GiB)",
                                 band.runs, band_min_measured_gib),
                     100 * band.low, "%", false, true, 0});
  t.stats.push_back({"peak error band, 90th percentile", 100 * band.high, "%", false, true, 0});
  t.stats.push_back({"rows compared", n, " rows", false, true, 0});
  t.stats.push_back({"rows skipped", double(table.skipped.size()), " rows", false, true, 0});
  add_skip_reasons(table.skipped, t);
  return t;
}

} // namespace paratune
