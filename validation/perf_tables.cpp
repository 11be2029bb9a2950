#include "validation/perf_tables.hpp"
#include "validation/reference_specs.hpp"

#include <filesystem>

#include "validation/csv_table.hpp"
#include "validation/maxtext_table.hpp"
#include "validation/h100_megatron_table.hpp"
#include "validation/megatron_ci_table.hpp"

namespace paratune {

namespace fs = std::filesystem;

namespace {

std::vector<csv_row> table(const std::string& data_dir, const char* file) {
  return read_csv_table((fs::path(data_dir) / "perf" / file).string());
}

// The columns every GPT table names the same way.
published_run gpt_run(const csv_row& r, const std::string& gpus_column) {
  published_run run;
  run.label = r.text("model");
  run.model = reference::gpt(r.integer("num_layers"), r.integer("hidden_size"),
                        r.integer("attention_heads"), r.integer("vocab"));
  run.config.tp = r.integer("tp");
  run.config.pp = r.integer("pp");
  run.config.gbs = r.integer("global_batch");
  run.config.seq = r.integer("seq_len");
  run.gpus = r.integer(gpus_column);
  return run;
}

} // namespace

std::vector<sc21_row> read_sc21_table(const std::string& data_dir) {
  std::vector<sc21_row> out;
  for (const auto& r : table(data_dir, "megatron_sc21_table1_weak_scaling_a100.csv")) {
    sc21_row row{gpt_run(r, "num_gpus"), r.number("measured_tflops_per_gpu")};
    auto& c = row.run.config;
    c.mbs = r.integer("micro_batch");
    c.recompute = recompute_mode::full;
    if (!r.empty("layers_per_virtual_stage"))
      c.vpp = row.run.model.layers / c.pp / r.integer("layers_per_virtual_stage");
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<korthikanti_row> read_korthikanti_table(const std::string& data_dir) {
  std::vector<korthikanti_row> out;
  for (const auto& r : table(data_dir, "korthikanti2022_seqpar_selective_a100.csv")) {
    korthikanti_row row;
    row.run = gpt_run(r, "num_gpus");
    row.run.config.mbs = r.integer("micro_batch");
    row.run.config.vpp = r.integer("interleave_v_(calculon_cfg)");
    row.time_full_s = r.number("iter_time_full_recompute_s");
    row.time_sel_s = r.number("iter_time_seqpar_plus_selective_s");
    row.states_gib = r.number("fig1_weights_grads_optimizer_GiB_per_gpu");
    row.act_none_gib = r.number("fig1_activation_GiB_no_recompute");
    row.act_sel_gib = r.number("fig1_activation_GiB_seqpar_selective");
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<megatron_core_row> read_megatron_core_table(const std::string& data_dir) {
  std::vector<megatron_core_row> out;
  for (const auto& r : table(data_dir, "megatron_core_r080_h100_weak_scaling.csv")) {
    megatron_core_row row{gpt_run(r, "num_gpus"),
                          r.number("measured_tflops_per_gpu") / r.number("peak_tflops")};
    auto& c = row.run.config;
    c.mbs = 1;
    c.sp = c.tp > 1;
    c.dist_opt = c.overlap_grad = c.overlap_param = true;
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<optico_row> read_optico_fig5_table(const std::string& data_dir) {
  std::vector<optico_row> out;
  for (const auto& r : table(data_dir, "optico_fig5_llama3_8b_a100x8_expert_tuning.csv")) {
    optico_row row;
    auto& c = row.run.config;
    c.tp = r.integer("tp");
    c.pp = r.integer("pp");
    c.mbs = r.integer("micro_batch_size");
    c.gbs = r.integer("global_batch_size");
    c.seq = r.integer("seq_length");
    c.dist_opt = c.overlap_grad = c.overlap_param = true;
    row.run.model = reference::llama3_8b();
    row.run.gpus = r.integer("nnodes") * r.integer("nproc");
    row.run.label = "tp " + std::to_string(c.tp) + " pp " + std::to_string(c.pp) + " mbs "
                    + std::to_string(c.mbs) + " gbs " + std::to_string(c.gbs);
    row.ran = r.text("result") == "success";
    if (row.ran) {
      row.mem_max_mib = r.number("mem_max_mib");
      row.tflops = r.number("tflops");
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<vtrain_row> read_vtrain_multi_table(const std::string& data_dir) {
  std::vector<vtrain_row> out;
  for (const auto& r : table(data_dir, "vtrain_ground_truth_multi_a100.csv")) {
    vtrain_row row;
    row.run.label = r.text("Parameters (billion)") + "B";
    row.run.model = reference::gpt(r.integer("# layers"), r.integer("hidden size"),
                              r.integer("attention heads"));
    auto& c = row.run.config;
    c.tp = r.integer("tensor parallelism");
    c.pp = r.integer("pipeline parallelism");
    c.mbs = r.integer("micro batch");
    c.gbs = r.integer("global batch");
    c.seq = r.integer("sequence length");
    c.recompute = recompute_mode::full;
    row.run.gpus = r.integer("# GPUs");
    row.iteration_time_s = r.number("iteration time (ms)") / 1000;
    out.push_back(std::move(row));
  }
  return out;
}

published_tables read_published_tables(const std::string& data_dir) {
  return {read_sc21_table(data_dir), read_korthikanti_table(data_dir),
          read_megatron_core_table(data_dir), read_optico_fig5_table(data_dir),
          read_vtrain_multi_table(data_dir), read_maxtext_table(data_dir),
          read_megatron_ci_table(data_dir),
          read_h100_megatron_runs(data_dir)};
}

} // namespace paratune
