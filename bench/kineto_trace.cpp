// Throughput of the Kineto trace reader on the real corpus traces,
// decompressed and held in memory (so only parsing + analysis is timed).
//   build/bin/bench_kineto_trace [--benchmark_filter=...]
// Traces: find_data_dir()/kineto ($PARATUNE_DATA, else the checkout's data/).
#include "adapters/config/executable_paths.hpp"
#include "adapters/profile/gzip_file.hpp"
#include "adapters/profile/kineto_trace.hpp"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path kineto_corpus() {
  return fs::path(paratune::find_data_dir()) / "kineto";
}

const std::vector<std::pair<std::string, std::string>>& traces() {
  static const auto all = [] {
    std::vector<std::pair<std::string, std::string>> v;
    for (const char* name : {"hta_alexnet_A100_single_gpu.pt.trace.json",
                             "hta_nccl_data_2rank_allreduce_with_comm_metadata.json.gz",
                             "hta_sampled_rank-0_128ranks.json.gz"})
      v.emplace_back(name, paratune::read_maybe_gzip(kineto_corpus() / name).data);
    return v;
  }();
  return all;
}

void BM_kineto_parse(benchmark::State& state) {
  const auto& [name, text] = traces()[static_cast<std::size_t>(state.range(0))];
  state.SetLabel(name);
  for (auto _ : state) {
    auto t = paratune::parse_kineto_trace(text, name);
    benchmark::DoNotOptimize(t.total.busy_us);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_kineto_parse)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

// All three traces back to back: the figure quoted in docs/benchmarks.md.
void BM_kineto_parse_corpus(benchmark::State& state) {
  std::size_t bytes = 0;
  for (const auto& [name, text] : traces())
    bytes += text.size();
  for (auto _ : state)
    for (const auto& [name, text] : traces()) {
      auto t = paratune::parse_kineto_trace(text, name);
      benchmark::DoNotOptimize(t.total.busy_us);
    }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_kineto_parse_corpus)->Unit(benchmark::kMillisecond);

// Baseline: building an nlohmann::json DOM of the same text, nothing else.
void BM_nlohmann_dom_corpus(benchmark::State& state) {
  std::size_t bytes = 0;
  for (const auto& [name, text] : traces())
    bytes += text.size();
  for (auto _ : state)
    for (const auto& [name, text] : traces()) {
      auto j = nlohmann::json::parse(text);
      benchmark::DoNotOptimize(j.size());
    }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_nlohmann_dom_corpus)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
