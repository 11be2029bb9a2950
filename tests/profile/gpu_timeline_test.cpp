#include "adapters/profile/gpu_timeline.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

using k = gpu_activity_kind;

TEST(GpuTimeline, UnionsOverlapsAndClipsToTheWindow) {
  // Two overlapping compute kernels on different streams, an NCCL kernel
  // half hidden behind them, a memcpy alone, and work outside the window.
  std::vector<gpu_activity> acts = {
      {-50, 5, k::compute},        // starts before the window
      {10, 30, k::compute},
      {20, 40, k::compute},
      {35, 60, k::communication},  // 35-40 overlapped, 40-60 exposed
      {70, 80, k::memcpy},
      {75, 78, k::memset},
      {95, 130, k::compute},       // clipped at 100
      {150, 160, k::compute},      // outside
  };
  auto b = breakdown_window(acts, 55, 0, 100);
  EXPECT_DOUBLE_EQ(b.window_us, 100);
  EXPECT_DOUBLE_EQ(b.compute_us, 5 + 30 + 5);
  EXPECT_DOUBLE_EQ(b.comm_us, 25);
  EXPECT_DOUBLE_EQ(b.exposed_comm_us, 20);
  EXPECT_DOUBLE_EQ(b.overlapped_comm_us(), 5);
  EXPECT_DOUBLE_EQ(b.memory_us, 10);
  EXPECT_DOUBLE_EQ(b.exposed_memory_us, 10);
  EXPECT_DOUBLE_EQ(b.busy_us, 5 + 50 + 10 + 5);
  EXPECT_DOUBLE_EQ(b.idle_us, 30);
  EXPECT_DOUBLE_EQ(b.compute_us + b.exposed_comm_us + b.exposed_memory_us + b.idle_us,
                   b.window_us);
}

TEST(GpuTimeline, EmptyAndInvertedWindows) {
  std::vector<gpu_activity> none;
  EXPECT_DOUBLE_EQ(breakdown_window(none, 0, 0, 10).idle_us, 10);
  EXPECT_DOUBLE_EQ(breakdown_window(none, 0, 10, 0).window_us, 0);
}

} // namespace
} // namespace paratune
