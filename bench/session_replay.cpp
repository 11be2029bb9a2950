// What a tuning session's periodic replay reads from the pool as its
// history grows: the whole session (before issue 11) against only what was
// appended since the last replay (tuning_session_state::replay now). Each
// iteration is one tick that finds 4 new records.
//
//   build/bin/bench_session_replay

#include <benchmark/benchmark.h>

#include <filesystem>

#include "messages/codec.hpp"
#include "storage/message_pool.hpp"

namespace {

using namespace paratune;

constexpr int new_per_tick = 4;

/// A pool whose session "s" holds `n` trial results, with another session's
/// records between them as a daemon's pool would.
std::unique_ptr<message_pool> pool_with(int64_t n, const std::string& dir) {
  std::filesystem::remove_all(dir);
  auto pool = std::move(*message_pool::open(dir));
  for (int64_t i = 1; i <= n; ++i) {
    wire::trial_result r;
    r.trial = int(i);
    r.status = trial_status::succeeded;
    r.tflops_per_gpu = 200;
    r.config = {{"tp", "2"}, {"pp", "1"}, {"mbs", "2"}};
    r.log_tail.assign(8, "iteration 10/12 | elapsed time per iteration (ms): 1234.5");
    (void)pool->append(wire::make_envelope("s", int(i), r));
    (void)pool->append(wire::make_envelope("other", int(i), r));
  }
  return pool;
}

void replay_whole_session(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() / "bench-replay-whole";
  auto pool = pool_with(state.range(0), dir);
  for (auto _ : state)
    benchmark::DoNotOptimize(pool->session_history("s")->size());
  state.SetLabel(std::to_string(state.range(0)) + " records");
  pool.reset();
  std::filesystem::remove_all(dir);
}

void replay_since_last_tick(benchmark::State& state) {
  const auto dir = std::filesystem::temp_directory_path() / "bench-replay-since";
  auto pool = pool_with(state.range(0), dir);
  // The records a tick finds new: the last `new_per_tick` of the session's.
  const uint64_t after = pool->next_seq() - 1 - 2 * new_per_tick;
  for (auto _ : state)
    benchmark::DoNotOptimize(pool->session_history("s", after)->size());
  state.SetLabel(std::to_string(state.range(0)) + " records");
  pool.reset();
  std::filesystem::remove_all(dir);
}

BENCHMARK(replay_whole_session)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);
BENCHMARK(replay_since_last_tick)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
