// How `paratune advise` scales with the length of its history: reading the
// CSV (load_history_csv) and the reasoner's analysis over it (analyze), for
// 1,000 to 100,000 rows of Llama3-8B on 8 A100s. The rows cycle through 48
// configurations, as a long-lived team's table repeats its runs; a fifth of
// them failed (out of memory, or a blamed TP), the rest ran.
//
// Target (issue 9): 100,000 rows in under a second, growing linearly.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "adapters/config/catalog.hpp"
#include "adapters/config/history_csv.hpp"
#include "core/job_spec.hpp"
#include "core/tuning/reasoner.hpp"

namespace {

std::string history_file(int rows) {
  const auto path = std::filesystem::temp_directory_path()
                    / ("paratune_bench_history_" + std::to_string(rows) + ".csv");
  if (std::filesystem::exists(path))
    return path.string();
  std::ofstream out(path);
  out << "model,model_size,nnodes,nproc,precision,seq_length,global_batch_size,"
         "micro_batch_size,tp,pp,result,tflops,mfu,mem_max_mib,mem_limit_mib,failure_reason\n";
  const int tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 4}, mbss[] = {1, 2, 4, 8};
  for (int i = 0; i < rows; ++i) {
    const int tp = tps[i % 4], pp = pps[(i / 4) % 3], mbs = mbss[(i / 12) % 4];
    const bool failed = i % 5 == 4;
    const double tflops = 120 + (i * 37 % 80);
    out << "llama3,8B,1,8,bf16,4096,512," << mbs << ',' << tp << ',' << pp << ','
        << (failed ? "fail,,," : "success,") ;
    if (!failed)
      out << tflops << ',' << tflops / 312 << ',';
    out << (failed ? "" : std::to_string(30000 + i % 40000)) << ",81920,"
        << (failed ? (i % 2 ? "CUDA out of memory" : "ValueError: tp incompatible") : "") << '\n';
  }
  return path.string();
}

paratune::tuning_context context_for(const paratune::history_table& t) {
  paratune::tuning_context ctx;
  ctx.model = paratune::find_model(t.model, t.model_size);
  ctx.cluster = paratune::load_cluster("dgx-a100-80g");
  ctx.world_size = t.nodes * t.devices_per_node;
  ctx.prec = t.prec;
  ctx.initial = t.rows.back().config;
  ctx.search = paratune::default_search_space(ctx.model, ctx.cluster, ctx.world_size, ctx.initial);
  for (auto& [key, values] : ctx.search)
    for (const auto& row : t.rows) {
      auto v = paratune::get_value(row.config, key);
      if (std::find(values.begin(), values.end(), v) == values.end())
        values.push_back(v);
    }
  ctx.from_last_run = true;
  return ctx;
}

void bm_load_history_csv(benchmark::State& state) {
  const auto path = history_file(int(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(paratune::load_history_csv(path));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void bm_advise(benchmark::State& state) {
  const auto path = history_file(int(state.range(0)));
  for (auto _ : state) {
    const auto table = paratune::load_history_csv(path);
    const auto ctx = context_for(table);
    benchmark::DoNotOptimize(paratune::analyze(ctx, table.rows));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

} // namespace

BENCHMARK(bm_load_history_csv)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_advise)->RangeMultiplier(10)->Range(1000, 100000)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
