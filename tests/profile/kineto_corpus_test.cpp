// Values read from every real Kineto trace in data/kineto. Expected
// numbers were computed independently (Python json + the same definitions).
#include "adapters/profile/kineto_trace.hpp"
#include "tests/fixtures/test_paths.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace paratune {
namespace {

namespace fs = std::filesystem;

kineto_trace read(const std::string& name) {
  return read_kineto_trace(fs::path(test::data_dir()) / "kineto" / name);
}

TEST(KinetoCorpus, AlexnetSingleGpuWithoutSteps) {
  auto t = read("hta_alexnet_A100_single_gpu.pt.trace.json");
  EXPECT_FALSE(t.partial);
  EXPECT_EQ(t.event_count, 1408u);
  EXPECT_EQ(t.kernel_count, 79u);
  EXPECT_EQ(t.comm_kernel_count, 0u);
  EXPECT_EQ(t.memcpy_count, 16u);
  EXPECT_EQ(t.memset_count, 3u);
  EXPECT_DOUBLE_EQ(t.kernel_time_us, 10692.0);
  EXPECT_EQ(*t.schema_version, 1);
  ASSERT_EQ(t.devices.size(), 8u);
  EXPECT_EQ(t.devices[0].name, "NVIDIA A100-PG509-200");
  EXPECT_EQ(t.devices[0].total_global_mem, 42297524224u);
  EXPECT_EQ(t.devices[0].compute_major, 8);
  EXPECT_EQ(t.devices[0].num_sms, 108);
  EXPECT_EQ(*t.distributed.rank, 0);
  EXPECT_FALSE(t.distributed.world_size);
  EXPECT_EQ(*t.primary_device, 0);
  // No ProfilerStep: the GPU's whole active span is the window.
  EXPECT_TRUE(t.steps.empty());
  EXPECT_FALSE(t.step_time_avg_ms);
  EXPECT_DOUBLE_EQ(t.total.window_us, 12920244.0);
  EXPECT_DOUBLE_EQ(t.total.busy_us, 66141.0);
  EXPECT_DOUBLE_EQ(t.total.compute_us, 10630.0);
  EXPECT_DOUBLE_EQ(t.total.memory_us, 55511.0);
  EXPECT_NEAR(t.gpu_busy_share(), 0.005119175767887975, 1e-15);
  ASSERT_EQ(t.top_kernels.size(), 16u);  // distinct kernel names
  EXPECT_EQ(t.top_kernels[0].name, "ampere_sgemm_32x32_sliced1x4_tn");
  EXPECT_EQ(t.top_kernels[0].count, 6u);
  EXPECT_DOUBLE_EQ(t.top_kernels[0].total_us, 2621.0);
  EXPECT_NEAR(t.top_kernels[0].share, 0.24513655069210624, 1e-12);
  EXPECT_EQ(t.top_kernels[0].kind, gpu_activity_kind::compute);
}

TEST(KinetoCorpus, TwoRankAllReduceNcclShare) {
  auto t = read("hta_nccl_data_2rank_allreduce_with_comm_metadata.json.gz");
  EXPECT_FALSE(t.partial);
  EXPECT_EQ(t.event_count, 40573u);
  EXPECT_EQ(t.kernel_count, 2700u);
  EXPECT_EQ(t.comm_kernel_count, 21u);  // 15 AllReduce + 6 Broadcast
  EXPECT_EQ(t.memcpy_count, 960u);
  EXPECT_EQ(t.memset_count, 114u);
  EXPECT_EQ(t.distributed.backend, "nccl");
  EXPECT_EQ(*t.distributed.rank, 0);
  EXPECT_EQ(*t.distributed.world_size, 2);
  EXPECT_EQ(t.distributed.nccl_version, "2.17.1");
  EXPECT_NEAR(t.kernel_time_us, 162532.3349609375, 1e-6);
  EXPECT_NEAR(t.comm_kernel_time_us, 46876.4921875, 1e-6);
  EXPECT_NEAR(t.comm_kernel_share(), 46876.4921875 / 162532.3349609375, 1e-9);

  ASSERT_EQ(t.steps.size(), 3u);
  EXPECT_EQ(t.steps[0].name, "ProfilerStep#4");
  EXPECT_EQ(*t.steps[0].number, 4);
  EXPECT_NEAR(t.steps[0].duration_us, 222442.191, 1e-6);
  EXPECT_NEAR(t.steps[0].gpu.compute_us, 38506.396, 1e-3);
  EXPECT_NEAR(t.steps[0].gpu.comm_us, 11989.021, 1e-3);
  EXPECT_NEAR(t.steps[0].gpu.exposed_comm_us, 10163.762, 1e-3);
  EXPECT_NEAR(t.steps[2].gpu.exposed_comm_us, 18856.094, 1e-3);
  EXPECT_NEAR(*t.step_time_avg_ms, (222442.191 + 219726.905 + 224936.243) / 3000, 1e-9);
  EXPECT_NEAR(*t.step_time_stddev_ms, 2.1273425216, 1e-9);

  const auto& g = t.total;
  EXPECT_NEAR(g.window_us, 667105.34, 1e-3);
  EXPECT_NEAR(g.busy_us, 157500.078, 1e-3);
  EXPECT_NEAR(g.compute_us, 115655.843, 1e-3);
  EXPECT_NEAR(g.comm_us, 46876.492, 1e-3);
  EXPECT_NEAR(g.exposed_comm_us, 39559.466, 1e-3);
  EXPECT_NEAR(g.memory_us, 2653.57, 1e-3);
  EXPECT_NEAR(g.exposed_memory_us, 2284.77, 1e-3);
  EXPECT_NEAR(g.idle_us, 509605.262, 1e-3);
  EXPECT_NEAR(g.share(g.exposed_comm_us), 0.059300178633824384, 1e-9);
  EXPECT_NEAR(g.compute_us + g.exposed_comm_us + g.exposed_memory_us + g.idle_us, g.window_us,
              1e-6);

  EXPECT_EQ(t.top_kernels[0].name,
            "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)");
  EXPECT_EQ(t.top_kernels[0].kind, gpu_activity_kind::communication);
  EXPECT_EQ(t.top_kernels[0].count, 15u);
  EXPECT_NEAR(t.top_kernels[0].share, 0.2877098776336639, 1e-9);
}

TEST(KinetoCorpus, SampledRankOf128) {
  auto t = read("hta_sampled_rank-0_128ranks.json.gz");
  EXPECT_FALSE(t.partial);
  EXPECT_EQ(t.event_count, 4855u);
  EXPECT_EQ(t.kernel_count, 1154u);
  EXPECT_EQ(t.comm_kernel_count, 10u);
  EXPECT_EQ(*t.distributed.world_size, 128);
  EXPECT_EQ(t.distributed.backend, "nccl");
  EXPECT_TRUE(t.devices.empty());
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(*t.steps[1].number, 552);
  EXPECT_DOUBLE_EQ(*t.step_time_avg_ms, 615.12);
  EXPECT_NEAR(*t.step_time_stddev_ms, 7.808, 1e-9);
  EXPECT_DOUBLE_EQ(t.total.window_us, 1230240.0);
  EXPECT_DOUBLE_EQ(t.total.busy_us, 547656.0);
  EXPECT_DOUBLE_EQ(t.total.compute_us, 210320.0);
  EXPECT_DOUBLE_EQ(t.total.comm_us, 396199.0);
  EXPECT_DOUBLE_EQ(t.total.exposed_comm_us, 336983.0);
  EXPECT_DOUBLE_EQ(t.total.idle_us, 682584.0);
  EXPECT_NEAR(t.comm_kernel_share(), 396199.0 / 606519.0, 1e-12);
  EXPECT_EQ(t.top_kernels[0].name,
            "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)");
  EXPECT_NEAR(t.top_kernels[0].share, 0.6532342762551544, 1e-12);
}

TEST(KinetoCorpus, NcclKernelNames) {
  EXPECT_TRUE(is_nccl_kernel_name("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"));
  EXPECT_TRUE(is_nccl_kernel_name("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_TRUE(is_nccl_kernel_name("ncclSymDevKernel_AllReduce_RSxLD_AGxST_sum_bf16"));
  EXPECT_TRUE(is_nccl_kernel_name("ncclSymKernel_AllGather"));
  EXPECT_FALSE(is_nccl_kernel_name("ncclDevFunc_AllReduce"));
  EXPECT_FALSE(is_nccl_kernel_name("void ncclKernel_x"));
  EXPECT_FALSE(is_nccl_kernel_name("ampere_sgemm_32x32_sliced1x4_tn"));
}

} // namespace
} // namespace paratune
