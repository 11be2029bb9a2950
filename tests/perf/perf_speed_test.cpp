// The tuner screens whole search spaces with predict(): it must sustain at
// least 100,000 configurations per second on one core. Measured in process
// CPU time so that a busy machine does not fail it.

#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>

#include "core/perf/perf_model.hpp"
#include "tests/perf/perf_specs.hpp"

namespace paratune {
namespace {

TEST(perf_speed, at_least_100k_predictions_per_cpu_second) {
  const model_spec m = test::llama3_8b();
  const cluster_spec cl = test::dgx_a100();
  training_config c;
  c.gbs = 512; c.seq = 8192; c.dist_opt = true; c.overlap_grad = true;
  const int n = 20000;
  double sink = 0;
  const std::clock_t start = std::clock();
  for (int i = 0; i < n; ++i) {
    c.tp = 1 << (i % 4);
    c.pp = 1 << ((i / 4) % 4);
    c.mbs = 1 + (i / 16) % 2;
    sink += predict(m, cl, 64, c, precision::bf16).iteration_time_s;
  }
  const double seconds = double(std::clock() - start) / CLOCKS_PER_SEC;
  const double rate = n / seconds;
  std::printf("predict(): %.0f configurations per CPU second\n", rate);
  EXPECT_GT(sink, 0);
  EXPECT_GE(rate, 100000);
}

} // namespace
} // namespace paratune
