// The fit verdict over the model's measured error band: fits, tight, or
// does not fit, with the numbers that decided it.

#include "core/perf/memory_verdict.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

constexpr memory_error_band band{-0.10, 0.30, 7};

TEST(memory_verdict, splits_at_the_band_ends) {
  // 80 GiB device: fits up to 81920 / 1.3 = 63015 MiB, does not fit past
  // 81920 / 0.9 = 91022 MiB.
  EXPECT_EQ(judge_memory(63015, 81920, band), memory_verdict::fits);
  EXPECT_EQ(judge_memory(63016, 81920, band), memory_verdict::tight);
  EXPECT_EQ(judge_memory(91022, 81920, band), memory_verdict::tight);
  EXPECT_EQ(judge_memory(91023, 81920, band), memory_verdict::does_not_fit);
  // No device limit known: nothing to refuse.
  EXPECT_EQ(judge_memory(1e9, 0, band), memory_verdict::fits);
}

TEST(memory_verdict, says_its_numbers) {
  EXPECT_EQ(describe_memory(76000, 81920, band),
            "tight (peak 76000 MiB; the model's measured error, -10%..+30%, puts the real peak "
            "at 68400..98800 MiB, around the 81920 MiB of the device: only a run can tell)");
  EXPECT_EQ(describe_memory(50000, 81920, band),
            "fits (peak 50000 MiB; the model's measured error, -10%..+30%, puts the real peak "
            "at 45000..65000 MiB, within the 81920 MiB of the device)");
  EXPECT_EQ(describe_memory(100000, 81920, band),
            "does not fit (peak 100000 MiB; even the model's largest measured over-estimate, "
            "10%, leaves 90000 MiB, above the 81920 MiB of the device)");
  EXPECT_EQ(memory_verdict_words(memory_verdict::does_not_fit), "does not fit");
}

} // namespace
} // namespace paratune
