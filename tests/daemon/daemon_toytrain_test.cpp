// The test-only framework (tests/frameworks/toytrain) run by a daemon, as a
// user runs any framework's session: `submit`, `watch`, `report`, from the
// same paratune-toytrain CLI. Fan-out over two pools, an early stop, a
// transient failure run again, and a report that names toytrain.

#include <filesystem>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/daemon/daemon_process.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "tests/frameworks/toytrain/toytrain_job.hpp"

namespace paratune {
namespace {

TEST(daemon_toytrain, a_session_of_a_framework_from_the_tests_runs_end_to_end) {
  const auto dir = test::make_temp_dir("daemon-toytrain");
  std::filesystem::create_directories(dir + "/runs");
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  const auto cli_path = test::bin_dir() + "/paratune-toytrain";
  test::daemon_launch how;
  how.executable = cli_path;
  test::daemon_process d{dir + "/state", {}, how};
  ASSERT_TRUE(d.up()) << d.output();
  const auto cli = [&](std::vector<std::string> args) {
    args.insert(args.begin(), cli_path);
    args.insert(args.end(), {"--daemon", d.control()});
    return test::run_program(args);
  };
  const auto job = test::write_file(dir, "job.yaml", test::toytrain_job(dir));
  const auto submitted = cli({"submit", job, "--json"});
  ASSERT_EQ(submitted.status, 0) << submitted.err;
  const auto id = nlohmann::json::parse(submitted.out).at("session").get<std::string>();

  const auto watched = cli({"watch", id, "--json"});
  ASSERT_EQ(watched.status, 0) << watched.err << d.output();
  std::istringstream lines{watched.out};
  nlohmann::json end;
  for (std::string line; std::getline(lines, line);)
    end = nlohmann::json::parse(line);
  EXPECT_EQ(end.at("event"), "end");
  EXPECT_EQ(end.at("state"), "finished");

  const auto report = cli({"report", id, "--format", "json"});
  ASSERT_EQ(report.status, 0) << report.err;
  const auto j = nlohmann::json::parse(report.out);
  ASSERT_EQ(j.at("trials").size(), 6u) << j.dump(1);
  std::set<std::string> pools;
  int stable = 0, lost = 0, retry_of = 0;
  for (const auto& t : j["trials"]) {
    pools.insert(t["pool"].get<std::string>());
    stable += t.value("stop", "") == "stable";
    if (t.value("failure", "") == "nccl_timeout")
      lost = t["index"].get<int>();
    retry_of = std::max(retry_of, t.value("retry_of", 0));
  }
  EXPECT_EQ(pools, (std::set<std::string>{"a", "b"})) << j.dump(1);
  EXPECT_GE(stable, 4) << j.dump(1);
  ASSERT_GT(lost, 0) << j.dump(1);
  EXPECT_EQ(retry_of, lost) << j.dump(1);
  EXPECT_EQ(j["best"]["framework"], "toytrain");
  EXPECT_EQ(j["best"]["trainer_args"][0], "--tensor-degree") << j["best"].dump();

  const auto exported = cli({"export", id});
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_EQ(exported.out.rfind("--tensor-degree ", 0), 0u) << exported.out;
  EXPECT_EQ(exported.out.find("--steps"), std::string::npos) << exported.out;
  EXPECT_EQ(d.stop(), 0) << d.output();
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace paratune
