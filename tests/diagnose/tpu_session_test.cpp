// The TPU session actor on a real runtime (loopback TCP bus, RocksDB pool)
// with stand-in simulators, real child processes: it recovers answers the
// bus lost from the pool, and it ends with a reason instead of waiting on a
// simulator that never answers or a diagnosis that failed.

#include <chrono>
#include <thread>

#include <sys/stat.h>

#include <caf/all.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "actors/bus_bridge.hpp"
#include "actors/diagnosis_agents.hpp"
#include "actors/runtime.hpp"
#include "actors/tpu_session.hpp"
#include "actors/tuning_session.hpp"
#include "adapters/config/job_loader.hpp"
#include "messages/codec.hpp"
#include "messages/type_ids.hpp"
#include "report/tpu_report.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/diagnose/runtime_fixture.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using namespace std::chrono_literals;

struct tpu_session_test : test::runtime_fixture {
  /// A stand-in for paratune-tpu-sim: a script with `body` as its commands.
  std::string simulator(const std::string& body) {
    const auto path = test::write_file(dir, "fake-tpu-sim", "#!/bin/sh\n" + body + "\n");
    chmod(path.c_str(), 0755);
    return path;
  }

  tpu_session_options options(const std::string& sim, int budget) {
    const auto file = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
    tpu_session_options o;
    o.id = "tpu-1";
    o.experiment_file = file;
    o.experiment_yaml = read_text_file(file);
    o.experiment = test::load_fixture_experiment(test::asap_dir("v6e-16-hbm"));
    o.budget = budget;
    o.simulator = sim;
    o.runs_dir = dir + "/runs";
    o.step_timeout = 60s;  // longer than any wait below: a test that needs it sets less
    return o;
  }

  caf::actor spawn(caf::scoped_actor& self, tpu_session_options o) {
    auto s = sys->spawn(tpu_session, rt->deps(), &rt->bridge(), std::move(o),
                        caf::actor_cast<caf::actor>(self));
    rt->adopt_session(s);
    return s;
  }

  /// Appends to the pool without publishing: what the bus then lost.
  template <class T>
  void store_only(const std::string& session, const T& body) {
    caf::scoped_actor self{*sys};
    self->request(rt->deps().pool, 10s, append_atom_v, wire::make_envelope(session, 0, body))
      .receive([](uint64_t) {}, [](caf::error& err) { FAIL() << to_string(err); });
  }

  /// Waits until the pool holds `n` records of `session`.
  bool await_records(const std::string& session, size_t n) {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < deadline) {
      auto h = rt->history(session);
      if (h && h->size() >= n)
        return true;
      std::this_thread::sleep_for(20ms);
    }
    return false;
  }
};

TEST_F(tpu_session_test, answers_the_bus_lost_are_read_back_from_the_pool) {
  // A warning on stderr before the answer: the two share the pipe.
  const auto sim = simulator("echo 'warming up' >&2\n"
                             "echo '{\"ok\": true, \"step_time_ms\": 250.5}'");
  caf::scoped_actor self{*sys};
  auto session = spawn(self, options(sim, 1));
  // No diagnosis agents run: the request is stored and nobody answers.
  ASSERT_TRUE(await_records("tpu-1.t1", 1));
  wire::diagnosis d;
  d.bottleneck = "hbm_bandwidth";
  store_only("tpu-1.t1", d);
  wire::proposal_set set;
  set.proposals.push_back({});
  set.proposals[0].title = "Trade data for model";
  set.proposals[0].mesh = "replica=1,data=2,model=8,seq=1";
  store_only("tpu-1.t1", set);
  // What the bridge sends on a gap; the step timeout is a minute away.
  caf::anon_send(session, replay_atom_v);
  auto end = await_session(self, session, 20s);
  ASSERT_TRUE(end) << to_string(end.error());
  ASSERT_EQ(end->state, session_state::finished) << end->text;
  // The listener hears only the end; the report is the session's record.
  EXPECT_EQ(end->text, "");
  const auto history = rt->history("tpu-1");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 1u);
  const auto report = tpu_end_of(*history);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->state, session_state::finished);
  ASSERT_EQ(report->trials.size(), 1u);
  const auto& t = report->trials[0];
  // The planner's fastest runs first: the model puts the job's own mesh
  // (replica=1,data=4,seq=4,model=1) 4.6 times slower (first_mesh_trial).
  EXPECT_EQ(parse_mesh(t.mesh), parse_mesh("data=4,model=4"));
  EXPECT_EQ(t.step_time_ms, 250.5);
  EXPECT_EQ(t.bottleneck, "hbm_bandwidth");
  EXPECT_EQ(t.next, "Trade data for model");
  EXPECT_EQ(report->best_trial, 1);
}

TEST_F(tpu_session_test, a_simulator_that_never_answers_ends_the_session_at_the_step_timeout) {
  const auto sim = simulator("exec sleep 60");
  caf::scoped_actor self{*sys};
  auto o = options(sim, 3);
  o.step_timeout = 1s;
  const auto started = std::chrono::steady_clock::now();
  auto session = spawn(self, std::move(o));
  auto end = await_session(self, session, 20s);
  ASSERT_TRUE(end) << to_string(end.error());
  EXPECT_EQ(end->state, session_state::failed);
  EXPECT_EQ(end->text, "paratune-tpu-sim did not finish trial 1 within 1 s");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
}

TEST_F(tpu_session_test, a_diagnosis_with_an_error_ends_the_session_with_it) {
  // The stand-in answers without writing a profile: nothing to diagnose.
  ASSERT_TRUE(start_diagnosis_agents(*sys, *rt, {}));
  const auto sim = simulator("echo '{\"ok\": true, \"step_time_ms\": 250.5}'");
  caf::scoped_actor self{*sys};
  auto session = spawn(self, options(sim, 3));
  auto end = await_session(self, session, 30s);
  ASSERT_TRUE(end) << to_string(end.error());
  EXPECT_EQ(end->state, session_state::failed);
  EXPECT_EQ(end->text.rfind("the diagnosis of trial 1 failed: ", 0), 0u) << end->text;
  EXPECT_NE(end->text.find(dir + "/runs/t1"), std::string::npos) << end->text;
}

} // namespace
} // namespace paratune
