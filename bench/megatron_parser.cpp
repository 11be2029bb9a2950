// Speed of the streaming Megatron-LM log parser on one core, in lines per
// second (Google Benchmark's items_per_second). The target is 1,000,000
// lines/s so that parsing never lags behind even a many-rank `--tee` log.
//
// The input is a synthetic but realistic mix in the proportions of a real
// 0.16-style run launched with torchrun --tee: per logging interval one
// timestamped iteration line, a (min, max) timer block, NCCL/INFO/warning
// noise from other ranks, and every tenth interval a memory report per rank
// (some glued on one line), after a startup argument dump.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "adapters/config/executable_paths.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"

namespace {

constexpr const char* timer_names[] = {
  "forward-backward", "forward-compute", "backward-compute", "batch-generator",
  "forward-recv", "forward-send", "backward-recv", "backward-send",
  "layernorm-grads-all-reduce", "embedding-grads-all-reduce", "all-grads-sync",
  "optimizer-copy-to-main-grad", "optimizer-inner-step", "optimizer"};

constexpr const char* noise[] = {
  "[default3]:gpu-node-17:2134:2377 [3] NCCL INFO Channel 02/0 : 3[3] -> 4[4] via P2P/IPC/read",
  "[default1]:INFO:megatron.core.distributed.param_and_grad_buffer:Number of buckets for "
  "gradient all-reduce / reduce-scatter: 1",
  "[default5]:/usr/lib/python3/dist-packages/torch/distributed/c10d_logger.py:83: "
  "UserWarning: barrier(): using the device under current context.",
  "[default0]:[rank0]:[W init.cpp:767] Warning: nvfuser is no longer supported in torch script",
  "[default2]:INFO:megatron.core.datasets.gpt_dataset:> total number of samples: 133387",
  "[default6]:  warnings.warn(",
};

void append_line(std::string& out, const std::string& line, int64_t& lines) {
  out += line;
  out += '\n';
  ++lines;
}

void append_startup(std::string& out, int64_t& lines) {
  append_line(out, "[default0]:------------------------ arguments ------------------------", lines);
  for (int i = 0; i < 300; ++i) {
    std::string name = "argument_number_" + std::to_string(i);
    append_line(out, "[default0]:  " + name + " " + std::string(48 - name.size(), '.') + " "
                       + std::to_string(i * 7),
                lines);
  }
  append_line(out, "[default0]:-------------------- end of arguments ---------------------", lines);
}

void append_interval(std::string& out, int it, std::mt19937& rng, int64_t& lines) {
  std::uniform_real_distribution<double> jitter(0.98, 1.02);
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "[default7]: [2026-09-14 15:%02d:%02d.%06d] iteration %8d/  102400 | consumed "
                "samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU "
                "(TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size:   256 | lm loss: "
                "%.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | "
                "number of nan iterations:   0 |",
                (it / 60) % 60, it % 60, (it * 7919) % 1000000, it, it * 256,
                6928.0 * jitter(rng), 412.3 * jitter(rng), 3.0e-4 * jitter(rng),
                2.5 * jitter(rng), 1.2 * jitter(rng));
  append_line(out, buf, lines);
  append_line(out, "[default7]:(min, max) time across ranks (ms):", lines);
  for (const char* name : timer_names) {
    std::string padded = std::string(name) + " ";
    padded.resize(48, '.');
    std::snprintf(buf, sizeof buf, "[default7]:    %s: (%.2f, %.2f)", padded.c_str(),
                  100.0 * jitter(rng), 110.0 * jitter(rng));
    append_line(out, buf, lines);
  }
  for (const char* n : noise) append_line(out, n, lines);
  if (it % 10 != 0) return;
  for (int rank = 0; rank < 8; ++rank) {
    std::snprintf(buf, sizeof buf,
                  "[default%d]:[Rank %d] (after %d iterations) memory (MB) | allocated: %.2f | "
                  "max allocated: %.2f | reserved: %.2f | max reserved: %.2f",
                  rank, rank, it, 48465.27 * jitter(rng), 75078.43 * jitter(rng), 75682.0,
                  75682.0);
    append_line(out, buf, lines);
  }
}

struct synthetic_log {
  std::string bytes;
  int64_t lines = 0;
};

const synthetic_log& mixed_log() {
  static const synthetic_log log = [] {
    synthetic_log l;
    std::mt19937 rng(42);
    append_startup(l.bytes, l.lines);
    for (int it = 1; it <= 10000; ++it) append_interval(l.bytes, it, rng, l.lines);
    return l;
  }();
  return log;
}

// Feeds in 64 KiB chunks, as a file reader or a pipe would.
void parse_all(const synthetic_log& log) {
  paratune::megatron_log_parser parser;
  constexpr std::size_t chunk = 64 * 1024;
  for (std::size_t at = 0; at < log.bytes.size(); at += chunk)
    parser.feed(std::string_view(log.bytes).substr(at, chunk));
  parser.finish();
  benchmark::DoNotOptimize(parser.log().iterations.data());
}

void bm_mixed_log(benchmark::State& state) {
  const auto& log = mixed_log();
  for (auto _ : state) parse_all(log);
  state.SetItemsProcessed(state.iterations() * log.lines);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(log.bytes.size()));
  state.counters["lines"] = static_cast<double>(log.lines);
}
BENCHMARK(bm_mixed_log)->Unit(benchmark::kMillisecond);

// Each kind of line alone, to see where the time goes.
synthetic_log repeated(const std::string& line, int times) {
  synthetic_log l;
  for (int i = 0; i < times; ++i) append_line(l.bytes, line, l.lines);
  return l;
}

void bm_one_kind(benchmark::State& state, const std::string& line) {
  const auto log = repeated(line, 100000);
  for (auto _ : state) parse_all(log);
  state.SetItemsProcessed(state.iterations() * log.lines);
}

BENCHMARK_CAPTURE(bm_one_kind, iteration_line,
                  std::string("[default7]: [2026-09-14 15:08:34.201805] iteration       45/  "
                              "102400 | consumed samples:          360 | elapsed time per "
                              "iteration (ms): 6928.0 | throughput per GPU (TFLOP/s/GPU): 61.9 | "
                              "learning rate: 1.000000E-05 | global batch size:     8 | lm loss: "
                              "1.012345E+01 | loss scale: 1.0 | grad norm: 1.234 | number of "
                              "skipped iterations:   0 | number of nan iterations:   0 |"))
  ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_one_kind, memory_line,
                  std::string("[default3]:[Rank 3] (after 20 iterations) memory (MB) | "
                              "allocated: 48465.28 | max allocated: 75078.43 | reserved: "
                              "75682.00 | max reserved: 75682.00"))
  ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_one_kind, noise_line, std::string(noise[0]))->Unit(benchmark::kMillisecond);

// The real logs of data/megatron_logs, one after the other (about
// 3,100 lines: startup output, a BigScience training run, an OOM debug log
// and an r0.8 run), so that the synthetic numbers can be checked on what
// Megatron-LM really prints.
void bm_corpus_logs(benchmark::State& state) {
  synthetic_log log;
  std::filesystem::path dir;
  try {
    dir = std::filesystem::path(paratune::find_data_dir()) / "megatron_logs";
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".txt") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    log.bytes += text.str();
    if (!log.bytes.empty() && log.bytes.back() != '\n') log.bytes += '\n';
  }
  for (const char c : log.bytes) log.lines += c == '\n';
  if (log.lines == 0) {
    state.SkipWithError(("no .txt logs in " + dir.string()).c_str());
    return;
  }
  for (auto _ : state) parse_all(log);
  state.SetItemsProcessed(state.iterations() * log.lines);
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(log.bytes.size()));
  state.counters["lines"] = static_cast<double>(log.lines);
}
BENCHMARK(bm_corpus_logs)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
