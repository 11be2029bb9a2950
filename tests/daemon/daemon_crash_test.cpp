// The daemon's Done-when: 50 sessions on one daemon, the daemon killed with
// SIGKILL at random moments at least 10 times and started again, and every
// session finishes with a complete history, no trial twice, and the same
// trials as an uninterrupted run of the same jobs.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "messages/codec.hpp"
#include "tests/daemon/daemon_process.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using control::control_op;

constexpr int session_count = 50;
constexpr int trial_budget = 4;

/// Job i: Llama3-8B on one DGX A100 node, seed i (its own injected
/// failures and noise), about half a second per simulated trial, over a
/// space of 64 configurations.
std::string crash_job_text(int i) {
  return "name: crash-" + std::to_string(i) + "\n"
         "model: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1\nprecision: fp16\n"
         "initial: {tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}\n"
         "trials: " + std::to_string(trial_budget) + "\nstop: budget\n"
         // A small space keeps each analysis cheap: 50 sessions share one
         // analyst, and the test runs beside others on a 2-core machine.
         "search: {tp: [1, 2, 4, 8], pp: [1, 2], mbs: [1, 2], recompute: [full, none], "
         "dist_opt: [false, true]}\n"
         "simulation: {seed: " + std::to_string(i) + ", train_iters: 12, time_scale: 0.0005}\n";
}

/// Submits the 50 jobs; the session id of each, by job number.
std::vector<std::string> submit_all(test::daemon_process& d) {
  std::vector<std::string> ids;
  for (int i = 1; i <= session_count; ++i) {
    auto r = test::request_of(control_op::submit);
    r.job_yaml = crash_job_text(i);
    r.job_path = "crash-" + std::to_string(i) + ".yaml";
    const auto reply = d.call(r);
    EXPECT_TRUE(reply.ok) << reply.error;
    ids.push_back(reply.session);
  }
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), ids.size())
    << "the daemon gave two sessions one id";
  return ids;
}

/// Which of `ids` have not ended, as `list` says: running, or not listed at
/// all (a session the daemon lost).
std::vector<std::string> not_ended(test::daemon_process& d, const std::vector<std::string>& ids) {
  const auto reply = d.call(test::request_of(control_op::list));
  std::set<std::string> ended_ids;
  for (const auto& row : reply.sessions)
    if (row.state != "running")
      ended_ids.insert(row.id);
  std::vector<std::string> out;
  for (const auto& id : ids)
    if (!ended_ids.count(id))
      out.push_back(id + (reply.ok ? "" : " (list failed: " + reply.error + ")"));
  return out;
}

int ended(test::daemon_process& d, const std::vector<std::string>& ids) {
  return int(ids.size() - not_ended(d, ids).size());
}

/// Waits until every session of `ids` has ended; what has not, when the
/// time runs out ("" once all have).
std::string wait_until_all_ended(test::daemon_process& d, const std::vector<std::string>& ids,
                                 std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    const auto left = not_ended(d, ids);
    if (left.empty())
      return {};
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string text = std::to_string(left.size()) + " sessions have not ended:";
      for (const auto& id : left)
        text += " " + id;
      return text;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

/// A session's whole history, read in pages through the control endpoint.
std::vector<wire::envelope> history_of(test::daemon_process& d, const std::string& id) {
  std::vector<wire::envelope> all;
  auto r = test::request_of(control_op::history, id);
  r.limit = 50; // small pages: the paging is read too
  for (;;) {
    const auto reply = d.call(r);
    EXPECT_TRUE(reply.ok) << reply.error;
    all.insert(all.end(), reply.records.begin(), reply.records.end());
    if (!reply.more || !reply.ok)
      return all;
    r.after_seq = reply.last_seq;
  }
}

/// What a trial measured: what must not depend on the daemon's deaths.
using trial_key = std::tuple<int, wire::config_map, trial_status, double, int>;

std::vector<trial_key> trials_of(const std::vector<wire::envelope>& history) {
  std::vector<trial_key> out;
  for (const auto& e : history)
    if (e.type == wire::type_name<wire::trial_result>()) {
      const auto r = wire::body_of<wire::trial_result>(e);
      out.emplace_back(r.trial, r.config, r.status, r.tflops_per_gpu, r.retry_of);
    }
  std::sort(out.begin(), out.end());
  return out;
}

size_t count_of(const std::vector<wire::envelope>& history, const std::string& type) {
  return std::count_if(history.begin(), history.end(),
                       [&](const wire::envelope& e) { return e.type == type; });
}

/// Complete: opened once, ended once, every proposed trial has exactly
/// one result, every failure its diagnosis, no configuration run twice
/// but as a retry.
void expect_complete(const std::vector<wire::envelope>& h, const std::string& id) {
  SCOPED_TRACE("session " + id);
  EXPECT_EQ(count_of(h, "session_opened"), 1u);
  std::map<int, int> results, diagnoses;
  std::set<int> proposed;
  std::set<wire::config_map> configs;
  int final_status = 0;
  for (const auto& e : h) {
    if (e.type == "proposal" && e.trial > 0)
      proposed.insert(e.trial);
    if (e.type == "failure_diagnosis")
      ++diagnoses[e.trial];
    if (e.type == "session_status")
      final_status += is_final(wire::body_of<wire::session_status>(e).state);
    if (e.type != "trial_result")
      continue;
    const auto r = wire::body_of<wire::trial_result>(e);
    ++results[r.trial];
    if (r.retry_of == 0) {
      EXPECT_TRUE(configs.insert(r.config).second) << "trial " << r.trial << " repeats a config";
    }
  }
  EXPECT_EQ(final_status, 1);
  for (int t : proposed)
    EXPECT_EQ(results[t], 1) << "trial " << t;
  for (const auto& [t, n] : results)
    EXPECT_EQ(n, 1) << "trial " << t << " has " << n << " results";
  for (const auto& e : h)
    if (e.type == "trial_result" && wire::body_of<wire::trial_result>(e).status == trial_status::failed) {
      EXPECT_EQ(diagnoses[e.trial], 1) << "failed trial " << e.trial << " has no diagnosis";
    }
}

TEST(daemon_crash, fifty_sessions_survive_ten_kill9s_with_the_trials_of_an_uninterrupted_run) {
  const auto root = test::make_temp_dir("daemon-crash");
  // The uninterrupted run.
  std::vector<std::vector<wire::envelope>> calm(session_count);
  {
    test::daemon_process d{root + "/calm"};
    ASSERT_TRUE(d.up()) << d.output();
    const auto ids = submit_all(d);
    const auto left = wait_until_all_ended(d, ids, std::chrono::seconds(240));
    ASSERT_EQ(left, "") << d.output();
    for (int i = 0; i < session_count; ++i)
      calm[i] = history_of(d, ids[i]);
    EXPECT_EQ(d.stop(), 0);
  }
  // The same jobs, the daemon killed at random moments and started again.
  std::mt19937 rng{20261125};
  std::uniform_int_distribution<int> pause_ms{150, 1200};
  const auto state = root + "/killed";
  auto d = std::make_unique<test::daemon_process>(state);
  ASSERT_TRUE(d->up()) << d->output();
  const auto ids = submit_all(*d);
  int kills = 0;
  int ended_at_last_kill = 0;
  while (kills < 12) {
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
    ended_at_last_kill = ended(*d, ids);
    d->kill9();
    ++kills;
    d = std::make_unique<test::daemon_process>(state);
    ASSERT_TRUE(d->up()) << "restart " << kills << ":\n" << d->output();
  }
  const auto left = wait_until_all_ended(*d, ids, std::chrono::seconds(240));
  ASSERT_EQ(left, "") << d->output();
  size_t interrupted = 0;
  for (int i = 0; i < session_count; ++i) {
    const auto h = history_of(*d, ids[i]);
    expect_complete(h, ids[i]);
    EXPECT_EQ(trials_of(h), trials_of(calm[i])) << "job " << i + 1 << ", session " << ids[i];
    EXPECT_EQ(trials_of(h).size(), size_t(trial_budget)) << "job " << i + 1;
    interrupted += count_of(h, "trial_interrupted");
  }
  // Every kill landed while sessions ran, and trials it cut short ran again.
  std::printf("%d kills; %d of %d sessions had ended at the last; %zu trials interrupted\n",
              kills, ended_at_last_kill, session_count, interrupted);
  EXPECT_LT(ended_at_last_kill, session_count);
  EXPECT_GT(interrupted, 0u);
  EXPECT_EQ(d->stop(), 0);
  std::filesystem::remove_all(root);
}

} // namespace
} // namespace paratune
