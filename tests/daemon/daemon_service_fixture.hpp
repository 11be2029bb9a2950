#pragma once

// The daemon tests' fixture: a temp directory, a job, and the control
// operations and CLI commands a test runs against a real daemon.

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "messages/control_wire.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

/// Llama3-8B on one DGX A100 node; `time_scale` sets how long a trial runs.
inline std::string job_text(int trials, double time_scale, int seed = 3) {
  return "name: service-test\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
         "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
         "trials: " + std::to_string(trials) + "\nstop: budget\n"
         "simulation: {seed: " + std::to_string(seed) + ", train_iters: 12, time_scale: "
         + std::to_string(time_scale) + "}\n";
}

struct daemon_service : ::testing::Test {
  using control_op = control::control_op;

  void SetUp() override { dir = test::make_temp_dir("daemon-service"); }
  void TearDown() override { std::filesystem::remove_all(dir); }

  std::string submit(test::daemon_process& d, const std::string& text) {
    auto r = test::request_of(control_op::submit);
    r.job_yaml = text;
    const auto reply = d.call(r);
    EXPECT_TRUE(reply.ok) << reply.error;
    return reply.session;
  }

  control::session_row status(test::daemon_process& d, const std::string& id) {
    const auto reply = d.call(test::request_of(control_op::status, id));
    EXPECT_TRUE(reply.ok) << reply.error;
    return reply.ok ? reply.sessions.at(0) : control::session_row{};
  }

  /// Waits until the session's state is no longer "running".
  control::session_row wait_end(test::daemon_process& d, const std::string& id,
                                std::chrono::seconds limit = std::chrono::seconds(120)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    auto row = status(d, id);
    while (row.state == "running" && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      row = status(d, id);
    }
    return row;
  }

  std::vector<wire::envelope> history(test::daemon_process& d, const std::string& id) {
    const auto reply = d.call(test::request_of(control_op::history, id));
    EXPECT_TRUE(reply.ok) << reply.error;
    EXPECT_FALSE(reply.more);
    return reply.records;
  }

  test::program_result cli(std::vector<std::string> args) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    return test::run_program(args);
  }

  std::string dir;
};

} // namespace paratune::test
