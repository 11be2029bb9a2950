// Two users on one login node (issue 44): the owner (root here) and uid
// 65534 each start `paratune daemon --state DIR` with no other option. Both
// start, on free ports of their own, and each runs a session submitted to
// it and followed with `watch`, by a client that names no daemon: it finds
// its user's ~/.paratune/control.sock. A port the config names and another
// holds still stops the start, with the port and the key.

#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_service_fixture.hpp"
#include "tests/e2e/local_slurm.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

constexpr int nobody = 65534;

struct shared_host : ::testing::Test {
  void SetUp() override {
    if (::geteuid() != 0)
      GTEST_SKIP() << "a second user's daemon needs setpriv as root";
    dir = test::make_temp_dir("shared-host");
    ::chmod(dir.c_str(), 0755);
    // Copies the other user may run; the daemon finds paratune-sim beside
    // its own executable.
    fs::create_directories(dir + "/bin");
    for (const std::string name : {"paratune", "paratune-sim", "paratune-tpu-sim", "paratune-relay"}) {
      fs::copy_file(test::bin_dir() + "/" + name, dir + "/bin/" + name);
      ::chmod((dir + "/bin/" + name).c_str(), 0755);
    }
    fs::copy(test::source_dir() + "/configs", dir + "/configs", fs::copy_options::recursive);
    // Each user's home, only theirs; and a working directory with no
    // ./paratune-pool, where the clients run.
    for (const auto& [home, uid] : {std::pair{owner_home(), 0}, std::pair{nobody_home(), nobody}}) {
      fs::create_directories(home);
      ASSERT_EQ(::chown(home.c_str(), uid, uid), 0);
      ::chmod(home.c_str(), 0700);
    }
    fs::create_directories(dir + "/work");
    ::chmod((dir + "/work").c_str(), 0755);
    job = test::write_file(dir, "job.yaml", test::job_text(2, 0.0005));
    ::chmod(job.c_str(), 0644);
  }
  void TearDown() override {
    if (!dir.empty())
      fs::remove_all(dir);
  }

  std::string owner_home() const { return dir + "/home-owner"; }
  std::string nobody_home() const { return dir + "/home-nobody"; }

  /// What runs the daemon or a client as `uid`: its configs, and setpriv
  /// for the other user.
  std::vector<std::string> as(int uid) const {
    std::vector<std::string> w = {"/usr/bin/env", "PARATUNE_CONFIGS=" + dir + "/configs"};
    if (uid != 0)
      w.insert(w.end(), {"/usr/bin/setpriv", "--reuid", std::to_string(uid), "--regid",
                         std::to_string(uid), "--clear-groups"});
    return w;
  }

  test::daemon_process start(int uid, const std::string& home) {
    return test::daemon_process{home + "/.paratune", {}, {true, as(uid), dir + "/bin/paratune"}};
  }

  /// The CLI as `uid` with HOME=`home`, in a directory without a pool, no
  /// PARATUNE_DAEMON: it must find the daemon by itself.
  test::program_result client(int uid, const std::string& home, std::vector<std::string> args) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", dir + "/work",
                                     "/usr/bin/env", "-u", "PARATUNE_DAEMON", "HOME=" + home};
    const auto w = as(uid);
    argv.insert(argv.end(), w.begin() + 1, w.end()); // after /usr/bin/env: its settings
    argv.push_back(dir + "/bin/paratune");
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_program(argv);
  }

  std::string dir, job;
};

unsigned permission_bits_of(const std::string& path, unsigned* owner = nullptr) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  if (owner)
    *owner = st.st_uid;
  return st.st_mode & 07777;
}

nlohmann::json last_json_line(const std::string& text) {
  std::istringstream lines{text};
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty())
      last = line;
  return nlohmann::json::parse(last);
}

TEST_F(shared_host, two_users_daemons_start_with_the_defaults_and_each_runs_its_session) {
  auto mine = start(0, owner_home());
  ASSERT_TRUE(mine.up()) << mine.output();
  auto theirs = start(nobody, nobody_home());
  ASSERT_TRUE(theirs.up()) << theirs.output();

  // Free ports, each daemon its own: a dashboard and a relay ingress each.
  for (auto* d : {&mine, &theirs}) {
    EXPECT_EQ(d->http().rfind("127.0.0.1:", 0), 0u) << d->output();
    EXPECT_EQ(d->relay().rfind("tcp://127.0.0.1:", 0), 0u) << d->output();
  }
  EXPECT_NE(mine.http(), theirs.http());
  EXPECT_NE(mine.relay(), theirs.relay());
  EXPECT_EQ(mine.control(), "ipc://" + owner_home() + "/.paratune/control.sock");
  EXPECT_EQ(theirs.control(), "ipc://" + nobody_home() + "/.paratune/control.sock");

  const std::pair<int, std::string> users[] = {{0, owner_home()}, {nobody, nobody_home()}};
  test::daemon_process* daemons[] = {&mine, &theirs};
  for (int i = 0; i < 2; ++i) {
    const auto& [uid, home] = users[i];
    const auto& d = *daemons[i];
    SCOPED_TRACE("uid " + std::to_string(uid));
    // The ports it took, in its state directory, for its owner alone.
    const auto state = home + "/.paratune";
    unsigned file_owner = 99;
    EXPECT_EQ(permission_bits_of(state + "/endpoints.json", &file_owner), 0600u);
    EXPECT_EQ(file_owner, unsigned(uid));
    EXPECT_EQ(permission_bits_of(state, &file_owner), 0700u);
    EXPECT_EQ(file_owner, unsigned(uid));
    std::ifstream in(state + "/endpoints.json");
    const auto kept = nlohmann::json::parse(in);
    EXPECT_EQ(kept.at("http"), d.http());
    EXPECT_EQ(kept.at("relay_ingress"), d.relay());
    EXPECT_EQ(kept.at("control"), d.control());

    // submit and watch with no --daemon and no PARATUNE_DAEMON.
    const auto submitted = client(uid, home, {"submit", job, "--json"});
    ASSERT_EQ(submitted.status, 0) << submitted.err << d.output();
    const auto id = nlohmann::json::parse(submitted.out).at("session").get<std::string>();
    const auto watched = client(uid, home, {"watch", id, "--json"});
    ASSERT_EQ(watched.status, 0) << watched.err;
    EXPECT_EQ(last_json_line(watched.out).at("state"), "finished") << watched.out;

    // list reports the ports, and the one session of this daemon.
    const auto listed = client(uid, home, {"list", "--json"});
    ASSERT_EQ(listed.status, 0) << listed.err;
    const auto rows = nlohmann::json::parse(listed.out);
    ASSERT_EQ(rows.at("sessions").size(), 1u) << listed.out;
    EXPECT_EQ(rows.at("sessions").at(0).at("id"), id);
    EXPECT_EQ(rows.at("http"), d.http());
    EXPECT_EQ(rows.at("relay_ingress"), d.relay());
    const auto table = client(uid, home, {"list"});
    EXPECT_NE(table.out.find("daemon " + d.control() + ": dashboard http://" + d.http()
                             + ", relay ingress " + d.relay() + "\n"),
              std::string::npos) << table.out;

    // /health, on the port it took, says the same.
    const auto colon = d.http().rfind(':');
    httplib::Client http{"127.0.0.1", std::stoi(d.http().substr(colon + 1))};
    const auto health = http.Get("/health");
    ASSERT_TRUE(health) << "no answer at " << d.http();
    const auto h = nlohmann::json::parse(health->body);
    EXPECT_EQ(h.at("http"), d.http());
    EXPECT_EQ(h.at("relay_ingress"), d.relay());
  }
  // Each kept to its own: the other user's daemon never saw the session.
  EXPECT_EQ(mine.output().find(nobody_home()), std::string::npos);
  EXPECT_EQ(0, mine.stop());
  // Started again, it takes the relay port it had: the relays of Slurm
  // trials left running keep publishing there.
  auto again = start(0, owner_home());
  ASSERT_TRUE(again.up()) << again.output();
  EXPECT_EQ(again.relay(), mine.relay());
}

using taken_port = test::daemon_service;

TEST_F(taken_port, a_port_the_config_names_that_another_holds_stops_the_start_naming_key_and_port) {
  test::daemon_process first{dir + "/first", {}, {true, {}, {}}};
  ASSERT_TRUE(first.up()) << first.output();
  const auto relay = first.relay();
  const auto config = test::write_file(dir, "daemon.yaml", "relay_ingress: " + relay + "\n");
  const auto by_config = cli({"daemon", "--config", config, "--state", dir + "/second"});
  EXPECT_EQ(by_config.status, 1);
  EXPECT_NE(by_config.err.find("daemon: cannot start: bus failure: relay_ingress: cannot bind "
                               + relay + ": Address already in use"),
            std::string::npos) << by_config.err;
  const auto http = cli({"daemon", "--state", dir + "/third", "--http", first.http()});
  EXPECT_EQ(http.status, 1);
  EXPECT_NE(http.err.find("daemon: bad input: http: the dashboard cannot listen on " + first.http()
                          + ": Address already in use"),
            std::string::npos) << http.err;
}

/// `passed` relay lines in the daemon's /metrics, or -1 without an answer.
long relay_lines(const test::daemon_process& d, const std::string& outcome) {
  const auto colon = d.http().rfind(':');
  httplib::Client http{"127.0.0.1", std::stoi(d.http().substr(colon + 1))};
  const auto metrics = http.Get("/metrics");
  if (!metrics)
    return -1;
  const std::string key = "paratune_relay_ingress_messages_total{outcome=\"" + outcome + "\"} ";
  const auto at = metrics->body.find(key);
  return at == std::string::npos ? -1 : std::stol(metrics->body.substr(at + key.size()));
}

TEST_F(taken_port, the_relay_lines_of_two_default_daemons_trials_each_reach_their_own_daemon) {
  if (!test::use_local_slurm())
    GTEST_SKIP() << test::no_local_slurm;
  // Same uid: the local Slurm runs jobs as their submitter, and the relay
  // only needs each daemon's free port and key.
  const auto job = "name: shared-relay\nmodel: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\n"
                   "precision: fp16\ninitial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, "
                   "recompute: full}\ntrials: 2\nstop: budget\nsimulation: {train_iters: 8}\n"
                   "pools:\n"
                   "  - {name: a100, kind: slurm, partition: a100, via: sbatch, relay: true,\n"
                   "     relay_path: \"" + test::bin_dir() + "/paratune-relay\",\n"
                   "     launch: [\"" + test::bin_dir() + "/paratune-sim\", --sim-world-size,\n"
                   "              \"{gpus_per_node}\", --sim-time-scale, \"0.002\",\n"
                   "              --sim-failure-rate, \"0\", --sim-seed, \"{trial}\", "
                   "\"{megatron_args}\"]}\n";
  test::daemon_process a{dir + "/a", {}, {true, {}, {}}};
  test::daemon_process b{dir + "/b", {}, {true, {}, {}}};
  ASSERT_TRUE(a.up()) << a.output();
  ASSERT_TRUE(b.up()) << b.output();
  ASSERT_NE(a.relay(), b.relay());
  const auto in_a = submit(a, job), in_b = submit(b, job);
  EXPECT_EQ(wait_end(a, in_a).state, "finished") << a.output();
  EXPECT_EQ(wait_end(b, in_b).state, "finished") << b.output();
  for (const auto* d : {&a, &b}) {
    EXPECT_GT(relay_lines(*d, "passed"), 0) << d->output();
    EXPECT_EQ(relay_lines(*d, "unauthenticated"), 0) << "a line signed for the other daemon";
  }
}

} // namespace
} // namespace paratune
