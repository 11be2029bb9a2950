#include "validation/h100_megatron_table.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "adapters/config/job_loader.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"
#include "core/input_error.hpp"
#include "core/perf/perf_model.hpp"
#include "validation/megatron_ci_table.hpp"
#include "validation/reference_specs.hpp"

namespace paratune {

namespace {

namespace fs = std::filesystem;

// The first two iterations pay for torch.compile, the allocator's growth
// and the optimizer's first step: not what a configuration costs.
constexpr int warmup_iterations = 2;

// The arguments after pretrain_gpt.py of a launcher line such as
// "torchrun --nproc_per_node 1 ... pretrain_gpt.py --num-layers 22 ...".
std::vector<std::string> script_args(const fs::path& cmd) {
  std::istringstream words(read_text_file(cmd.string()));
  std::vector<std::string> args;
  bool after_script = false;
  for (std::string w; words >> w;) {
    if (after_script)
      args.push_back(w);
    else if (w.ends_with("pretrain_gpt.py"))
      after_script = true;
  }
  if (!after_script)
    throw input_error(cmd.string() + ": no pretrain_gpt.py in the command line");
  return args;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

h100_megatron_run read_run(const fs::path& cmd) {
  h100_megatron_run run;
  run.label = cmd.stem().string();
  std::vector<std::string> unknown;
  run.launch = parse_megatron_args(script_args(cmd), &unknown);
  auto log_path = cmd;
  log_path.replace_extension(".log");
  const auto log = parse_megatron_log_file(log_path.string());
  // Measurements beat the model: a run that died of memory before training
  // is kept as the evidence that this configuration does not fit.
  const auto oom = std::find_if(log.errors.begin(), log.errors.end(),
                                [](const log_error& e) { return e.kind == log_error_kind::oom; });
  if (log.iterations.empty() && oom != log.errors.end()) {
    run.out_of_memory = oom->message;
    return run;
  }
  std::vector<double> steady;
  for (const auto& it : log.iterations)
    if (it.iteration > warmup_iterations)
      steady.push_back(it.elapsed_ms);
  if (steady.empty())
    throw input_error(log_path.string() + ": no iteration after the warm-up");
  if (log.memory.empty())
    throw input_error(log_path.string() + ": no memory report");
  run.iteration_ms = median(steady);
  run.steady_iterations = int(steady.size());
  run.peak_allocated_mib = log.memory.back().max_allocated_mib;
  const auto& c = run.launch.config;
  run.tokens_per_s = double(c.gbs) * c.seq / (run.iteration_ms / 1000);
  return run;
}

perf_prediction predict_run(const h100_megatron_run& r) {
  perf_calibration cal;
  cal.flash_attention = false;  // --transformer-impl local: unfused attention
  return predict(r.launch.model, reference::dgx_h100(), 1, r.launch.config, r.launch.prec, cal);
}

} // namespace

std::vector<h100_megatron_run> read_h100_megatron_runs(const std::string& data_dir) {
  const auto dir = fs::path(data_dir) / "h100_1gpu" / "megatron";
  std::vector<fs::path> commands;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".cmd")
      commands.push_back(entry.path());
  std::sort(commands.begin(), commands.end());
  std::vector<h100_megatron_run> runs;
  for (const auto& cmd : commands)
    runs.push_back(read_run(cmd));
  return runs;
}

table_validation validate_h100_megatron(const std::vector<h100_megatron_run>& runs) {
  table_validation t{"h100_megatron_1gpu",
                     "paratune's own runs: Megatron-LM on one H100 (TinyLlama-1.1B shape, and Llama-2-7B's layer)", {}, {}};
  std::vector<compared_value> times, memory;
  std::vector<double> predicted_tokens, measured_tokens;
  int fits = 0;
  for (const auto& r : runs) {
    const auto p = predict_run(r);
    if (!r.out_of_memory.empty()) {
      // Only the verdict can be compared: the run has no times or peak. A
      // `tight` verdict said only a run could tell, and the run told.
      const bool right = p.memory != memory_verdict::fits;
      validation_row row{r.label, {}, "", right};
      row.note = fmt::format("out of memory on the GPU, predicted {} (peak {:.0f} MiB of {:.0f})",
                             memory_verdict_words(p.memory), p.peak_memory_mib, p.memory_limit_mib);
      fits += right;
      t.rows.push_back(std::move(row));
      continue;
    }
    const compared_value time{"iteration time (s)", p.iteration_time_s, r.iteration_ms / 1000};
    const compared_value mem{"peak allocated (GiB)", predicted_allocated_mib(p.stages.back()) / 1024,
                             r.peak_allocated_mib / 1024};
    validation_row row{r.label, {time, mem}, "", p.fits};
    row.note = fmt::format("ran, predicted {} (peak {:.0f} MiB of {:.0f})",
                           memory_verdict_words(p.memory), p.peak_memory_mib, p.memory_limit_mib);
    fits += p.fits;
    times.push_back(time);
    memory.push_back(mem);
    const auto& c = r.launch.config;
    predicted_tokens.push_back(double(c.gbs) * c.seq / p.iteration_time_s);
    measured_tokens.push_back(r.tokens_per_s);
    t.rows.push_back(std::move(row));
  }
  const double n = runs.size();
  t.stats.push_back({"fit verdicts right", double(fits), fmt::format("/{:.0f}", n), true, false, n});
  t.stats.push_back({"memory MAPE", mape(memory), "%", true, true, 5});
  t.stats.push_back({"iteration time MAPE", mape(times), "%", true, true, 45});
  t.stats.push_back({"Spearman tokens/s", spearman(predicted_tokens, measured_tokens), "", true,
                     false, 0.6});
  return t;
}

} // namespace paratune
