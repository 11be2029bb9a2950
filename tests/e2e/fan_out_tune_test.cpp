// Several trials in flight: a simulated pool with four slots keeps four
// paratune-sim processes running, and every result is followed by a fresh
// analysis that fills the slot it freed.

#include <filesystem>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "messages/codec.hpp"
#include "storage/message_pool.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "tests/fixtures/trial_times.hpp"

namespace paratune {
namespace {

nlohmann::json tune(const std::string& dir, int capacity, int trials) {
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  const auto job = test::write_file(
      dir, "job.yaml",
      "name: llama3-8b-fan-out\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
      "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
      "trials: " + std::to_string(trials)
      + "\nstop: budget\nsimulation: {seed: 3, train_iters: 8, time_scale: 0.005}\n"
      "pools:\n  - {name: sim, kind: simulated, capacity: " + std::to_string(capacity) + "}\n");
  const auto r = test::run_program(
      {test::bin_dir() + "/paratune", "tune", job, "--db", dir + "/pool", "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(fan_out_tune, four_slots_keep_four_distinct_trials_running) {
  const auto dir = test::make_temp_dir("fan-out");
  const auto j = tune(dir, 4, 10);
  EXPECT_EQ(j["state"], "finished");
  ASSERT_EQ(j["trials"].size(), 10u) << j.dump();
  EXPECT_EQ(test::most_running_at_once(j["trials"]), 4) << j.dump();
  // The first four started together, and no configuration ran twice
  // except as the retry of a failure.
  const double first = test::seconds_of(j["trials"][0]["started_at"]);
  for (int i = 0; i < 4; ++i)
    EXPECT_LT(test::seconds_of(j["trials"][i]["started_at"]) - first, 1.0) << j["trials"][i].dump();
  std::set<std::string> seen;
  for (const auto& t : j["trials"]) {
    EXPECT_EQ(t["pool"], "sim");
    EXPECT_TRUE(seen.insert(t["config"].dump()).second || t.contains("retry_of")) << t.dump();
  }
  // One analysis for the first four slots, then another whenever results
  // came in (results that land together share one): the queue is ranked
  // again on what was just measured.
  auto pool = message_pool::open(dir + "/pool");
  ASSERT_TRUE(pool);
  const auto history = (*pool)->session_history(j["session"].get<std::string>());
  ASSERT_TRUE(history);
  std::vector<wire::analysis_request> requests;
  for (const auto& e : *history)
    if (e.type == wire::type_name<wire::analysis_request>())
      requests.push_back(wire::body_of<wire::analysis_request>(e));
  ASSERT_GE(requests.size(), 3u);
  EXPECT_EQ(requests[0].slots, 4);
  EXPECT_EQ(requests[0].after_trial, 0);
  for (size_t i = 1; i < requests.size(); ++i) {
    EXPECT_EQ(requests[i].request, int(i) + 1);
    EXPECT_GT(requests[i].after_trial, requests[i - 1].after_trial) << "request " << i + 1;
  }
}

TEST(fan_out_tune, one_slot_runs_one_trial_at_a_time) {
  const auto dir = test::make_temp_dir("fan-out-1");
  const auto j = tune(dir, 1, 4);
  ASSERT_EQ(j["trials"].size(), 4u) << j.dump();
  EXPECT_EQ(test::most_running_at_once(j["trials"]), 1) << j.dump();
}

} // namespace
} // namespace paratune
