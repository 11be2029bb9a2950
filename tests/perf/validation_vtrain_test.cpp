// vTrain multi-node ground truth: GPT 3.6B/18.4B/39.1B/175B on 64..512
// A100s with Megatron-DeepSpeed, full recompute, 1F1B, fp16, no flash
// attention. vTrain's cluster: 8 GPUs a node, 150 GB/s inside the node,
// 800 Gbit/s per node between nodes (12.5 GB/s per GPU).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "core/perf/perf_model.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "tests/perf/csv_table.hpp"
#include "tests/perf/perf_specs.hpp"

namespace paratune {
namespace {

// vTrain's "150 GB/s intra-node" is the algorithm bandwidth of an 8-GPU
// all-reduce (bus bandwidth 150 x 2 x 7/8 = 262 GB/s), which is what the
// NVLink3 link of a DGX A100 gives; its 800 Gbit/s inter-node link is
// per node, 12.5 GB/s per GPU.
cluster_spec vtrain_cluster() {
  cluster_spec c = test::dgx_a100();
  c.name = "vtrain-a100";
  c.scale_out = {"IB-4xHDR", 800.0 / 8 / 8, 20};
  return c;
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
      ++j;
    for (size_t k = i; k <= j; ++k)
      r[order[k]] = (i + j) / 2.0; // ties share the mean rank
    i = j + 1;
  }
  return r;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const auto ra = ranks(a), rb = ranks(b);
  const double n = a.size();
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return cov / std::sqrt(va * vb);
}

TEST(perf_validation, spearman_of_identical_orders_is_one) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 45}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
}

TEST(perf_validation, vtrain_multi_node_time_and_ranking) {
  const auto rows = test::read_csv(test::shared_dir()
                                   + "/corpus/perf/vtrain_ground_truth_multi_a100.csv");
  ASSERT_GT(rows.size(), 100u);
  perf_calibration cal;
  cal.flash_attention = false;
  cal.p2p_scatter_gather = true;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_model;
  std::vector<double> predicted, measured;
  for (const auto& r : rows) {
    const int heads = r.integer("attention heads");
    const model_spec m = test::gpt(r.integer("# layers"), r.integer("hidden size"), heads);
    training_config c;
    c.tp = r.integer("tensor parallelism");
    c.pp = r.integer("pipeline parallelism");
    c.mbs = r.integer("micro batch");
    c.gbs = r.integer("global batch");
    c.seq = r.integer("sequence length");
    c.recompute = recompute_mode::full;
    const int gpus = r.integer("# GPUs");
    const auto p = predict(m, vtrain_cluster(), gpus, c, precision::fp16, cal);
    const double t = r.number("iteration time (ms)") / 1000;
    const std::string name = r.text("Parameters (billion)") + "B";
    by_model[name].first.push_back(p.iteration_time_s);
    by_model[name].second.push_back(t);
    predicted.push_back(p.iteration_time_s);
    measured.push_back(t);
    const auto& b = p.time;
    std::printf("vTrain %-5s tp %2d dp %2d pp %2d mbs %2d: %7.2f s vs %7.2f s (%+6.1f%%) "
                "[compute %.2f recompute %.2f tp %.2f pp %.2f dp %.2f bubble %.2f] %5.0f MiB\n",
                name.c_str(), c.tp, c.data_parallel(gpus), c.pp, c.mbs, p.iteration_time_s, t,
                100 * (p.iteration_time_s / t - 1), b.compute_s, b.recompute_s, b.tp_comm_s,
                b.pp_comm_s, b.dp_comm_s, b.bubble_s, p.peak_memory_mib);
  }
  double rho_sum = 0;
  for (const auto& [name, v] : by_model) {
    const double rho = spearman(v.first, v.second);
    std::printf("vTrain %-5s: %zu rows, MAPE %.2f%%, Spearman %.3f\n", name.c_str(),
                v.first.size(), test::mape(v.first, v.second), rho);
    EXPECT_GE(rho, 0.6) << name;
    rho_sum += rho;
  }
  const double err = test::mape(predicted, measured);
  std::printf("vTrain multi: MAPE %.2f%%, mean Spearman %.3f\n", err, rho_sum / by_model.size());
  EXPECT_LE(err, 10.0);
  EXPECT_GE(rho_sum / by_model.size(), 0.8);
}

} // namespace
} // namespace paratune
