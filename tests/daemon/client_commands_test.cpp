// The client commands behave alike (issue 27): each finds the daemon
// through --daemon or $PARATUNE_DAEMON, `ask` works through a running
// daemon, `sessions` lists a pool directory, `list` and `watch` agree right
// after a cancel, every executable has --version and --help, and a piped
// `tune` shows each trial as it starts.

#include <chrono>
#include <ctime>
#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/text.hpp"
#include "messages/codec.hpp"
#include "paratune_version.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/daemon/daemon_service_fixture.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using test::daemon_service;
using test::job_text;

using client_commands = daemon_service;

nlohmann::json json_of(const test::program_result& r) {
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

std::vector<nlohmann::json> json_per_line(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream lines{text};
  for (std::string line; std::getline(lines, line);)
    out.push_back(nlohmann::json::parse(line));
  return out;
}

/// Milliseconds since the epoch of "2026-11-27T15:22:48.123Z".
int64_t utc_ms(const std::string& iso) {
  std::tm tm{};
  int ms = 0;
  EXPECT_EQ(std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon,
                        &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms),
            7)
    << iso;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return int64_t(timegm(&tm)) * 1000 + ms;
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

TEST_F(client_commands, every_client_command_finds_the_daemon_through_PARATUNE_DAEMON) {
  test::daemon_process d{dir + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  const test::env_changes env = {{"PARATUNE_DAEMON", d.control().c_str()}};
  const auto run = [&](std::vector<std::string> args) {
    args.insert(args.begin(), test::bin_dir() + "/paratune");
    return test::run_program(args, env);
  };
  const auto job = test::write_file(dir, "job.yaml", job_text(2, 0.0005));
  const auto id = json_of(run({"submit", job, "--json"})).at("session").get<std::string>();
  const auto events = json_per_line(run({"watch", id, "--json"}).out);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2].at("state"), "finished");
  const auto listed = json_of(run({"list", "--json"})).at("sessions");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].at("id"), id);
  // `sessions` is `list` for a pool or a daemon: the same rows.
  EXPECT_EQ(json_of(run({"sessions", "--json"})).at("sessions"), listed);
  EXPECT_EQ(json_of(run({"report", id, "--format", "json"})).at("trials").size(), 2u);
  const auto exported = json_of(run({"export", id, "--format", "json"}));
  EXPECT_EQ(exported.at("trial"), listed[0].at("best_trial"));
  // JSON numbers are numbers, flags booleans.
  EXPECT_TRUE(exported.at("config").at("tp").is_number_integer()) << exported.dump();
  EXPECT_EQ(exported.at("config").at("gbs"), 512);
  EXPECT_TRUE(exported.at("config").at("sp").is_boolean()) << exported.dump();
  EXPECT_EQ(exported.at("config").at("recompute").type(), nlohmann::json::value_t::string);

  // ask through the daemon, which holds the pool (a RocksDB LOCK keeps
  // any other writer out): the turn is answered and stored there.
  const auto first = json_of(run({"ask", id, "which configuration is best?", "--json"}));
  EXPECT_EQ(first.at("thread"), 1);
  EXPECT_EQ(first.at("turn"), 1);
  EXPECT_EQ(first.at("topic"), "best");
  EXPECT_NE(first.at("answer").get<std::string>().find(
              "The best configuration is trial " + listed[0].at("best_trial").dump() + " ("),
            std::string::npos) << first.dump();
  const auto follow = json_of(run({"ask", id, "are you sure?", "--thread", "1", "--json"}));
  EXPECT_EQ(follow.at("thread"), 1);
  EXPECT_EQ(follow.at("turn"), 2);
  int turns = 0;
  for (const auto& e : history(d, id))
    turns += e.type == wire::type_name<wire::dialogue_turn>();
  EXPECT_EQ(turns, 2);
  const auto text = run({"ask", id, "which configuration is best?"});
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("(thread 2, turn 1; answered by the built-in reasoner)"),
            std::string::npos) << text.out;
  // Refusals come back in words, exit 2, as from a pool directory.
  const auto unknown = run({"ask", "s-nope", "which configuration is best?"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_EQ(unknown.err, "error: no tuning session 's-nope' in the daemon's pool\n");
  const auto no_thread = run({"ask", id, "why?", "--thread", "9"});
  EXPECT_EQ(no_thread.status, 2) << no_thread.err;
  EXPECT_NE(no_thread.err.find("error: thread 9 does not exist in session " + id),
            std::string::npos) << no_thread.err;
  const auto empty = run({"ask", id, "  "});
  EXPECT_EQ(empty.status, 2);
  EXPECT_EQ(empty.err, "error: the question is empty\n");

  const auto cancel = run({"cancel", id});
  EXPECT_EQ(cancel.status, 2);
  EXPECT_EQ(cancel.err, "error: session '" + id + "' is not running: it ended finished\n");

  // --db names a pool directory, and a flag wins over the variable: a
  // daemon that is not there is never asked.
  const test::env_changes nowhere = {{"PARATUNE_DAEMON", "tcp://127.0.0.1:1"}};
  const auto beside = test::run_program(
    {test::bin_dir() + "/paratune", "report", id, "--format", "json", "--db", dir + "/state/pool"},
    nowhere);
  EXPECT_EQ(beside.status, 0) << beside.err;
  const auto both = run({"export", id, "--db", dir + "/state/pool", "--daemon", d.control()});
  EXPECT_EQ(both.status, 2);
  EXPECT_EQ(both.err, "error: --db and --daemon: give one (--db reads a pool directory, "
                      "--daemon a running daemon)\n");
  // Without --db, report and export ask $PARATUNE_DAEMON, and say so when it
  // does not answer.
  const auto gone = test::run_program(
    {test::bin_dir() + "/paratune", "export", id, "--timeout", "1"}, nowhere);
  EXPECT_EQ(gone.status, 1);
  EXPECT_NE(gone.err.find("no answer from the daemon at tcp://127.0.0.1:1"), std::string::npos)
    << gone.err;
}

TEST_F(client_commands, sessions_lists_a_local_pool_through_the_session_ledger) {
  const auto job = test::write_file(dir, "job.yaml", job_text(2, 0.0005));
  const auto pool = dir + "/pool";
  const auto tuned = json_of(cli({"tune", job, "--db", pool, "--json"}));
  const auto id = tuned.at("session").get<std::string>();
  double best = 0;
  for (const auto& t : tuned.at("trials"))
    best = std::max(best, t.at("tflops_per_gpu").get<double>());
  const auto rows = json_of(cli({"sessions", "--db", pool, "--json"})).at("sessions");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("id"), id);
  EXPECT_EQ(rows[0].at("job"), "service-test");
  EXPECT_EQ(rows[0].at("state"), "finished");
  EXPECT_EQ(rows[0].at("trials_done"), 2);
  EXPECT_EQ(rows[0].at("trials_budget"), 2);
  EXPECT_EQ(rows[0].at("running"), 0);
  EXPECT_DOUBLE_EQ(rows[0].at("best_tflops_per_gpu").get<double>(), best);
  const auto table = cli({"sessions", "--db", pool});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_EQ(table.out.rfind("SESSION", 0), 0u) << table.out;
  const auto at = table.out.find("\n" + id + " ");
  ASSERT_NE(at, std::string::npos) << table.out;
  const auto line = table.out.substr(at + 1, table.out.find('\n', at + 1) - at - 1);
  EXPECT_NE(line.find(" finished "), std::string::npos) << line;
  EXPECT_NE(line.find(" 2/2 "), std::string::npos) << line;
  EXPECT_NE(line.find("service-test (llama3-8b on dgx-a100-80g)"), std::string::npos) << line;
  // The pool was read, never written: a second pool check finds it whole.
  EXPECT_EQ(cli({"pool", "check", pool}).status, 0);
  const auto missing = cli({"sessions", "--db", dir + "/nowhere"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_EQ(missing.err, "error: no pool at " + dir + "/nowhere (--db: the directory `tune --db` "
                                                      "wrote)\n");
}

TEST_F(client_commands, list_and_watch_agree_right_after_a_cancel) {
  test::daemon_process d{dir + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  const auto id = submit(d, job_text(6, 0.02)); // ~30 s per trial
  auto watched = std::async(std::launch::async,
                            [&] { return cli({"watch", id, "--daemon", d.control()}); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (status(d, id).running == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(status(d, id).running, 1);
  ASSERT_EQ(cli({"cancel", id, "--daemon", d.control()}).status, 0);
  // The first `list` that shows the session ended shows no trial running:
  // the trial it stopped counts as done, before and after its result is in.
  nlohmann::json row;
  const auto end_by = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {
    row = json_of(cli({"list", "--json", "--daemon", d.control()})).at("sessions").at(0);
  } while (row.at("state") == "running" && std::chrono::steady_clock::now() < end_by);
  EXPECT_EQ(row.at("state"), "cancelled") << row.dump();
  EXPECT_EQ(row.at("running"), 0) << row.dump();
  EXPECT_EQ(row.at("trials_done"), 1) << row.dump();
  // `watch` prints the stopped trial before the summary.
  ASSERT_EQ(watched.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  const auto w = watched.get();
  EXPECT_EQ(w.status, 0) << w.err;
  const auto line = w.out.find("trial  1/6  stopped");
  const auto summary = w.out.find("session " + id + " cancelled after 1 trial of a budget of 6\n");
  ASSERT_NE(line, std::string::npos) << w.out;
  ASSERT_NE(summary, std::string::npos) << w.out;
  EXPECT_LT(line, summary) << w.out;
  EXPECT_NE(w.out.find("why: the session was cancelled"), std::string::npos) << w.out;
  // And `list` later still says the same.
  const auto later = json_of(cli({"list", "--json", "--daemon", d.control()})).at("sessions").at(0);
  EXPECT_EQ(later.at("running"), 0);
  EXPECT_EQ(later.at("trials_done"), 1);
}

TEST_F(client_commands, every_executable_prints_its_version_and_its_help) {
  for (const std::string name : {"paratune", "paratune-sim", "paratune-tpu-sim", "paratune-relay"}) {
    const auto exe = test::bin_dir() + "/" + name;
    if (!std::filesystem::exists(exe)) {
      ADD_FAILURE() << exe << " not built";
      continue;
    }
    const auto version = test::run_program({exe, "--version"});
    EXPECT_EQ(version.status, 0) << name << ": " << version.err;
    EXPECT_EQ(version.out, name + " " + paratune::version + "\n");
    const auto help = test::run_program({exe, "--help"});
    EXPECT_EQ(help.status, 0) << name << ": " << help.err;
    EXPECT_EQ(help.err, "") << name;
    EXPECT_NE(lower(help.out).find("usage"), std::string::npos) << name << ": " << help.out;
  }
  // paratune-sim's help names its own options, argparse-style -h too.
  const auto sim = test::run_program({test::bin_dir() + "/paratune-sim", "-h"});
  EXPECT_EQ(sim.status, 0);
  EXPECT_NE(sim.out.find("--sim-cluster NAME|FILE"), std::string::npos) << sim.out;
  // The daemon reports the same version.
  test::daemon_process d{dir + "/state"};
  ASSERT_TRUE(d.up()) << d.output();
  EXPECT_EQ(d.call(test::request_of(control_op::health)).version, paratune::version);
}

TEST_F(client_commands, a_piped_tune_shows_each_trial_start_within_a_second_of_its_launch) {
  const auto job = test::write_file(dir, "job.yaml", job_text(3, 0.002)); // ~3 s per trial
  const auto out = dir + "/tune.out";
  const auto pool = dir + "/pool";
  auto tuned = std::async(std::launch::async, [&] {
    return test::run_shell("'" + test::bin_dir() + "/paratune' tune '" + job + "' --db '" + pool
                           + "' > '" + out + "'");
  });
  // When each line first appeared in the file, by its first 22 characters.
  std::map<std::string, int64_t> seen;
  const auto read_lines = [&] {
    std::ifstream in{out};
    for (std::string line; std::getline(in, line);)
      seen.try_emplace(line.substr(0, 22), now_ms());
  };
  while (tuned.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
    read_lines();
  const auto r = tuned.get();
  ASSERT_EQ(r.status, 0) << r.err;
  read_lines();
  std::ifstream in{out};
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  EXPECT_EQ(text.find('\r'), std::string::npos) << "no progress redraws in a file";
  EXPECT_EQ(text.rfind("session s", 0), 0u) << text;
  EXPECT_NE(text.find(", a budget of 3 trials, pool "), std::string::npos) << text;
  const auto id = text.substr(8, text.find(':') - 8);
  const auto report = json_of(cli({"report", id, "--format", "json", "--db", pool}));
  ASSERT_EQ(report.at("trials").size(), 3u);
  for (const auto& t : report.at("trials")) {
    const int n = t.at("index");
    const auto key = "trial  " + std::to_string(n) + "/3  started   ";
    ASSERT_TRUE(seen.count(key)) << key << " missing from:\n" << text;
    const auto launched = utc_ms(t.at("started_at").get<std::string>());
    EXPECT_LT(seen[key] - launched, 1000) << key;
    // Its start is printed before its end.
    const auto end = "trial  " + std::to_string(n) + "/3  " + t.at("status").get<std::string>();
    ASSERT_NE(text.find(end), std::string::npos) << end << " missing from:\n" << text;
    EXPECT_LT(text.find(key), text.find(end)) << text;
  }
  // The summary names what the trials cost.
  EXPECT_NE(text.find("tuning spent "), std::string::npos) << text;
  EXPECT_NE(text.find(" GPU-hours\n"), std::string::npos) << text;
}

TEST_F(client_commands, a_piped_tune_prints_a_heartbeat_at_most_every_30_seconds) {
  // One trial of 80 iterations, each paced at the simulator's 500 ms cap: ~40 s.
  auto text = job_text(1, 1.0);
  text.replace(text.find("train_iters: 12"), 15, "train_iters: 80");
  const auto job = test::write_file(dir, "job.yaml", text);
  const auto out = dir + "/tune.out";
  auto tuned = std::async(std::launch::async, [&] {
    return test::run_shell("'" + test::bin_dir() + "/paratune' tune '" + job + "' --db '" + dir
                           + "/pool' > '" + out + "'");
  });
  std::vector<std::pair<std::string, int64_t>> lines; // each line and when it appeared
  const auto read_lines = [&] {
    std::ifstream in{out};
    size_t n = 0;
    for (std::string line; std::getline(in, line); ++n)
      if (n >= lines.size() && !in.eof())
        lines.emplace_back(line, now_ms());
  };
  while (tuned.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready)
    read_lines();
  ASSERT_EQ(tuned.get().status, 0);
  read_lines();
  int64_t started = 0;
  std::vector<int64_t> beats;
  for (const auto& [line, at] : lines) {
    if (line.rfind("trial  1/1  started", 0) == 0)
      started = at;
    if (line.rfind("trial  1/1  running   iteration ", 0) == 0) {
      beats.push_back(at);
      EXPECT_NE(line.find(" per iteration, "), std::string::npos) << line;
      EXPECT_NE(line.find(" TFLOP/s/GPU"), std::string::npos) << line;
      EXPECT_EQ(line.find(" ms per iteration"), std::string::npos) << "in s or min: " << line;
    }
  }
  ASSERT_GT(started, 0);
  // A 40 s trial: one heartbeat, 30 s after the last line (its start).
  ASSERT_EQ(beats.size(), 1u);
  EXPECT_GE(beats[0] - started, 29'500);
}

} // namespace
} // namespace paratune
