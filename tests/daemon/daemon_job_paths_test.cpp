// `paratune submit` to a real daemon started in another working directory:
// the daemon tunes the model and cluster files the client read beside the
// job (sent inline), stores that inlined job, and refuses a job that names
// a model file by path.

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "messages/codec.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/fixtures/job_folders.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;
using control::control_op;

struct daemon_job_paths : ::testing::Test {
  void SetUp() override {
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
    dir = test::make_temp_dir("daemon-job-paths");
    fs::create_directories(dir + "/daemon-cwd/models");
    fs::create_directories(dir + "/client-cwd");
  }
  void TearDown() override { fs::remove_all(dir); }

  /// A daemon whose working directory holds models/my.yaml of 16 layers.
  std::unique_ptr<test::daemon_process> start_daemon() {
    test::write_file(dir + "/daemon-cwd/models", "my.yaml",
                     test::small_model_yaml("daemon-cwd-model", 16));
    const auto previous = fs::current_path();
    fs::current_path(dir + "/daemon-cwd"); // the child inherits it
    auto d = std::make_unique<test::daemon_process>(dir + "/state");
    fs::current_path(previous);
    return d;
  }

  std::string dir;
};

TEST_F(daemon_job_paths, submit_sends_the_files_beside_the_job_and_the_pool_keeps_them_inline) {
  const test::job_folders folders{dir};
  folders.write_job("job.yaml", "models/my.yaml", "clusters/mine.yaml",
                    "simulation: {seed: 3, train_iters: 8, time_scale: 0.0001}\n");
  auto d = start_daemon();
  ASSERT_TRUE(d->up()) << d->output();
  const auto r = test::run_shell("cd '" + dir + "/client-cwd' && '" + test::bin_dir()
                                 + "/paratune' submit ../jobs/job.yaml --trials 1 --daemon '"
                                 + d->control() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto id = r.out.substr(0, r.out.find('\n'));
  // Waits for the end: the simulator must have loaded the inline cluster.
  std::string state = "running";
  for (int i = 0; i < 600 && state == "running"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto row = d->call(test::request_of(control_op::status, id));
    ASSERT_TRUE(row.ok) << row.error;
    state = row.sessions.at(0).state;
  }
  EXPECT_EQ(state, "finished") << d->output();
  const auto history = d->call(test::request_of(control_op::history, id));
  ASSERT_TRUE(history.ok) << history.error;
  const auto opened = std::find_if(history.records.begin(), history.records.end(),
                                   [](const auto& e) { return e.type == "session_opened"; });
  ASSERT_NE(opened, history.records.end());
  const auto s = wire::body_of<wire::session_opened>(*opened);
  EXPECT_EQ(s.model.name, "job-folder-model");
  EXPECT_EQ(s.model.layers, 24);
  EXPECT_EQ(s.world_size, 8);
  EXPECT_EQ(s.sim_cluster.front(), '{') << s.sim_cluster;
  EXPECT_EQ(s.job_yaml.rfind("# model: models/my.yaml (" + folders.jobs
                               + "/models/my.yaml), inlined by paratune submit\n# cluster: "
                                 "clusters/mine.yaml (" + folders.jobs
                               + "/clusters/mine.yaml), inlined by paratune submit\n",
                             0),
            0u)
    << s.job_yaml;
  EXPECT_NE(s.job_yaml.find("model:\n  name: job-folder-model\n  family: llama3\n  layers: 24\n"),
            std::string::npos)
    << s.job_yaml;
  EXPECT_EQ(s.job_yaml.find("models/my.yaml\n"), std::string::npos) << s.job_yaml;
}

TEST_F(daemon_job_paths, the_daemon_refuses_a_job_naming_a_model_file_by_path) {
  auto d = start_daemon();
  ASSERT_TRUE(d->up()) << d->output();
  auto r = test::request_of(control_op::submit);
  r.job_yaml = "name: raw\nmodel: models/my.yaml\ncluster: dgx-a100-80g\n"
               "initial: {tp: 1, gbs: 512, seq: 4096}\n";
  const auto reply = d->call(r);
  EXPECT_FALSE(reply.ok);
  EXPECT_EQ(reply.error, "the submitted job: field 'model': 'models/my.yaml' is a file path, and "
                         "the daemon reads no model file a job names: paratune submit sends the "
                         "model file's fields inline (a mapping under 'model:')");
}

} // namespace
} // namespace paratune
