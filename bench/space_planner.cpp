// How fast `paratune plan` (and the reasoner's whole-space walk) ranks the
// default configuration space: Llama3-8B on 8 A100s, seq 8192, gbs 512.

#include <benchmark/benchmark.h>

#include "adapters/config/catalog.hpp"
#include "core/job_spec.hpp"
#include "core/tuning/space_planner.hpp"

namespace {

paratune::plan_request llama3_request() {
  paratune::plan_request r;
  r.model = paratune::load_model("llama3-8b");
  r.cluster = paratune::load_cluster("dgx-a100-80g");
  r.world_size = 8;
  r.base.seq = 8192;
  r.base.gbs = 512;
  r.space = paratune::default_search_space(r.model, r.cluster, r.world_size, r.base);
  return r;
}

void bm_plan_default_space(benchmark::State& state) {
  const auto r = llama3_request();
  std::size_t candidates = 0;
  for (auto _ : state) {
    auto res = paratune::plan_space(r);
    candidates = res.candidates;
    benchmark::DoNotOptimize(res);
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(candidates));
  state.counters["candidates"] = double(candidates);
}

} // namespace

BENCHMARK(bm_plan_default_space)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
