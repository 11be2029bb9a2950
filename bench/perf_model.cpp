// Throughput of the performance model: predict() over a sweep of Megatron
// configurations, the way the tuner screens a search space.
//   build/bin/bench_perf_model

#include <benchmark/benchmark.h>

#include <vector>

#include "core/perf/perf_model.hpp"

namespace {

using namespace paratune;

model_spec llama3_8b() {
  model_spec m;
  m.name = "llama3-8b";
  m.layers = 32; m.hidden = 4096; m.heads = 32; m.kv_heads = 8;
  m.ffn = 14336; m.vocab = 128256; m.swiglu = true;
  m.position = position_embedding::rope; m.bias_linear = false;
  return m;
}

model_spec gpt_175b() {
  model_spec m;
  m.name = "gpt-175b";
  m.layers = 96; m.hidden = 12288; m.heads = 96; m.kv_heads = 96;
  m.ffn = 4 * 12288; m.vocab = 51200; m.rmsnorm = false; m.tied_embeddings = true;
  return m;
}

cluster_spec dgx_h100() {
  cluster_spec c;
  c.name = "dgx-h100";
  c.device = {"H100-SXM5-80GB", 989, 1979, 80, 3350, false};
  c.scale_up = {"NVLink4", 450, 8};
  c.scale_out = {"IB-NDR", 50, 18};
  return c;
}

// Every tp x pp x mbs x recompute x dist-opt combination that divides.
std::vector<training_config> sweep(int world, int layers, int gbs) {
  std::vector<training_config> out;
  for (int tp : {1, 2, 4, 8})
    for (int pp : {1, 2, 4, 8, 16})
      for (int mbs : {1, 2, 4})
        for (auto rc : {recompute_mode::none, recompute_mode::selective, recompute_mode::full})
          for (bool dist : {false, true}) {
            training_config c;
            c.tp = tp; c.pp = pp; c.mbs = mbs; c.gbs = gbs; c.seq = 4096;
            c.recompute = rc; c.dist_opt = dist; c.overlap_grad = true;
            c.sp = tp > 1;
            if (world % (tp * pp) || layers % pp || c.micro_batches(world) == 0)
              continue;
            out.push_back(c);
          }
  return out;
}

void run_sweep(benchmark::State& state, const model_spec& m, int world) {
  const cluster_spec cl = dgx_h100();
  const auto configs = sweep(world, m.layers, 1024);
  double sink = 0;
  for (auto _ : state) {
    for (const auto& c : configs) {
      const perf_prediction p = predict(m, cl, world, c, precision::bf16);
      sink += p.iteration_time_s;
    }
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(configs.size()));
  state.counters["configs"] = double(configs.size());
}

void BM_predict_llama3_8b_64gpu(benchmark::State& state) {
  run_sweep(state, llama3_8b(), 64);
}
BENCHMARK(BM_predict_llama3_8b_64gpu);

void BM_predict_gpt_175b_1024gpu(benchmark::State& state) {
  run_sweep(state, gpt_175b(), 1024);
}
BENCHMARK(BM_predict_gpt_175b_1024gpu);

} // namespace

BENCHMARK_MAIN();
