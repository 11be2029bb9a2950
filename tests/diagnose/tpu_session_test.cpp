// The TPU session actor on a real runtime (loopback TCP bus, RocksDB pool)
// with stand-in simulators, real child processes: it recovers answers the
// bus lost from the pool, and it ends with a reason instead of waiting on a
// simulator that never answers or a diagnosis that failed.

#include <algorithm>
#include <chrono>
#include <fstream>
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
#include "core/tpu/mesh_model.hpp"
#include "report/tpu_report.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/diagnose/runtime_fixture.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using namespace std::chrono_literals;

// What MaxText's metric logger prints for a run of three steps: step 0 is
// compilation, steps 1 and 2 are scored (mean 250.5 ms).
const std::string maxtext_steps =
    "echo 'I1128 01:00:00.000000 7 metric_logger.py:223] completed step: 0, seconds: 30.000, "
    "TFLOP/s/device: 2.000, Tokens/s/device: 100.000, total_weights: 65536, loss: 10.900'\n"
    "echo 'I1128 01:00:00.250000 7 metric_logger.py:223] completed step: 1, seconds: 0.250, "
    "TFLOP/s/device: 240.000, Tokens/s/device: 16384.000, total_weights: 65536, loss: 10.800'\n"
    "echo 'I1128 01:00:00.501000 7 metric_logger.py:223] completed step: 2, seconds: 0.251, "
    "TFLOP/s/device: 239.000, Tokens/s/device: 16318.000, total_weights: 65536, loss: 10.700'";

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

  /// Stores the session's first record, as tune and the daemon do, and
  /// starts it (a resumed session has its records already).
  tpu_session_actor spawn(caf::scoped_actor& self, tpu_session_options o) {
    if (!o.resume)
      store_only(o.id, opened_record(o));
    auto s = sys->spawn(tpu_session, rt->deps(), &rt->bridge(), std::move(o),
                        listener_of(self));
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

  /// The session's rows in the order stored.
  std::vector<wire::tpu_trial_row> rows_of(const std::vector<wire::envelope>& history) {
    std::vector<wire::tpu_trial_row> rows;
    for (const auto& e : history)
      if (e.type == wire::type_name<wire::tpu_trial_row>())
        rows.push_back(wire::body_of<wire::tpu_trial_row>(e));
    return rows;
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
  const auto sim = simulator("echo 'warming up' >&2\n" + maxtext_steps);
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
  // The run's row when it was proposed, when it was measured and when its
  // diagnosis came; between them the validator's records of its run.
  const auto rows = rows_of(*history);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].ended_ms, 0);
  EXPECT_FALSE(rows[0].diagnosing);
  EXPECT_EQ(rows[1].ended_ms, 0);
  EXPECT_TRUE(rows[1].diagnosing);
  EXPECT_EQ(rows[1].step_time_ms, 250.5);
  EXPECT_GT(rows[2].ended_ms, 0);
  ASSERT_EQ(rows[2].proposed.size(), 1u);
  EXPECT_EQ(rows[2].proposed[0].mesh, "replica=1,data=2,model=8,seq=1");
  auto count = [&](const std::string& type) {
    return std::count_if(history->begin(), history->end(),
                         [&](const auto& e) { return e.type == type; });
  };
  EXPECT_EQ(count(wire::type_name<wire::proposal>()), 1);
  EXPECT_EQ(count(wire::type_name<wire::trial_started>()), 1);
  EXPECT_EQ(count(wire::type_name<wire::trial_result>()), 1);
  const auto report = tpu_end_of(*history);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->state, session_state::finished);
  ASSERT_EQ(report->trials.size(), 1u);
  const auto& t = report->trials[0];
  // The planner's fastest runs first: the model puts the job's own mesh
  // (replica=1,data=4,seq=4,model=1) 4.6 times slower (first_mesh_trial).
  EXPECT_EQ(parse_mesh(t.mesh), parse_mesh("data=4,model=4"));
  EXPECT_EQ(t.step_time_ms, 250.5);
  // Its chip-hours: the three logged steps (compilation included) on 16
  // chips; its MFU: the mesh model's model FLOPs over the measured step.
  EXPECT_DOUBLE_EQ(t.chip_hours, (30.0 + 0.250 + 0.251) * 1000 / 3.6e6 * 16);
  const auto exp = test::load_fixture_experiment(test::asap_dir("v6e-16-hbm"));
  EXPECT_DOUBLE_EQ(t.mfu, measured_mesh_mfu(exp.model, exp.cluster, exp.slice,
                                            parse_mesh("data=4,model=4"), exp.dcn_mesh,
                                            exp.workload, 250.5));
  EXPECT_GT(t.mfu, 0.05);
  EXPECT_LT(t.mfu, 1.0);
  EXPECT_EQ(t.bottleneck, "hbm_bandwidth");
  EXPECT_EQ(t.next, "Trade data for model");
  EXPECT_EQ(report->best_trial, 1);
  // Not the job's own mesh: nothing measured it.
  EXPECT_EQ(report->job_mesh, "replica=1,data=4,seq=4,model=1");
  EXPECT_FALSE(t.job_mesh);
}

// Nothing tells the session the answers came (the bus lost them and no
// gap shows): its periodic read of the pool finds them.
TEST_F(tpu_session_test, answers_no_message_announces_are_found_by_the_periodic_read) {
  const auto sim = simulator(maxtext_steps);
  caf::scoped_actor self{*sys};
  auto session = spawn(self, options(sim, 1));
  ASSERT_TRUE(await_records("tpu-1.t1", 1));
  wire::diagnosis d;
  d.bottleneck = "compute";
  store_only("tpu-1.t1", d);
  store_only("tpu-1.t1", wire::proposal_set{});
  auto end = await_session(self, session, 20s); // the step timeout is a minute away
  ASSERT_TRUE(end) << to_string(end.error());
  ASSERT_EQ(end->state, session_state::finished) << end->text;
  const auto report = tpu_end_of(*rt->history("tpu-1"));
  ASSERT_TRUE(report);
  ASSERT_EQ(report->trials.size(), 1u);
  EXPECT_EQ(report->trials[0].bottleneck, "compute");
}

// A job whose own mesh is the planner's fastest runs it first: its row is
// marked as the job's mesh, and the answer measures against it.
TEST_F(tpu_session_test, the_run_of_the_jobs_own_mesh_is_marked_and_measured_against) {
  const auto sim = simulator(maxtext_steps);
  caf::scoped_actor self{*sys};
  auto o = options(sim, 1);
  o.experiment.mesh = parse_mesh("data=4,model=4");
  auto session = spawn(self, std::move(o));
  ASSERT_TRUE(await_records("tpu-1.t1", 1));
  wire::diagnosis d;
  d.bottleneck = "hbm_bandwidth";
  store_only("tpu-1.t1", d);
  store_only("tpu-1.t1", wire::proposal_set{});
  caf::anon_send(session, replay_atom_v);
  auto end = await_session(self, session, 20s);
  ASSERT_TRUE(end) << to_string(end.error());
  const auto history = rt->history("tpu-1");
  ASSERT_TRUE(history);
  const auto report = tpu_end_of(*history);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->job_mesh, "data=4,model=4");
  ASSERT_EQ(report->trials.size(), 1u);
  EXPECT_TRUE(report->trials[0].job_mesh);
  EXPECT_TRUE(rows_of(*history).front().job_mesh); // as it was proposed
  EXPECT_EQ(tpu_gain_text(*report), "the job's own mesh: no other mesh was faster");
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
  const auto sim = simulator(maxtext_steps);
  caf::scoped_actor self{*sys};
  auto session = spawn(self, options(sim, 3));
  auto end = await_session(self, session, 30s);
  ASSERT_TRUE(end) << to_string(end.error());
  EXPECT_EQ(end->state, session_state::failed);
  EXPECT_EQ(end->text.rfind("the diagnosis of trial 1 failed: ", 0), 0u) << end->text;
  EXPECT_NE(end->text.find(dir + "/runs/t1"), std::string::npos) << end->text;
}

TEST_F(tpu_session_test, each_trial_is_maxtext_s_command_line_for_its_mesh) {
  // The stand-in keeps its arguments, one per line, then trains.
  const auto sim = simulator("printf '%s\\n' \"$@\" > '" + dir + "/argv'\n" + maxtext_steps);
  caf::scoped_actor self{*sys};
  auto session = spawn(self, options(sim, 1));
  ASSERT_TRUE(await_records("tpu-1.t1", 1)); // its diagnose_request: the run was read
  caf::anon_send_exit(session, caf::exit_reason::user_shutdown);
  std::ifstream in(dir + "/argv");
  std::vector<std::string> argv;
  for (std::string line; std::getline(in, line);)
    argv.push_back(line);
  const auto file = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
  // The trainer's own options, the experiment as MaxText's config, then
  // the run's keys and the mesh (first_mesh_trial's data=4,model=4: model is
  // MaxText's tensor axis) with the batch MaxText is to train: 32 sequences
  // in 4 accumulation steps on 16 chips.
  const std::vector<std::string> head = {"train", "--seed", "1", "--time-scale", "0.000000",
                                         "--failure-rate", "0.000000", file,
                                         "run_name=t1", "base_output_directory=" + dir + "/runs",
                                         "steps=6", "profiler=xplane", "ici_data_parallelism=4",
                                         "ici_fsdp_parallelism=1", "ici_context_parallelism=1",
                                         "ici_tensor_parallelism=4", "ici_expert_parallelism=1"};
  ASSERT_GE(argv.size(), head.size());
  EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.begin() + head.size()), head);
  auto has = [&](const std::string& kv) {
    return std::find(argv.begin(), argv.end(), kv) != argv.end();
  };
  EXPECT_TRUE(has("per_device_batch_size=0.5"));
  EXPECT_TRUE(has("gradient_accumulation_steps=4"));
  EXPECT_TRUE(has("max_target_length=2048"));
}

TEST_F(tpu_session_test, an_out_of_memory_run_is_a_failed_trial_and_the_session_goes_on) {
  // XLA's error line, as a TPU run prints it, and Python's exit status.
  const auto sim = simulator(
      "echo 'jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in "
      "memory space hbm. Used 40.10G of 31.25G hbm.' >&2\nexit 1");
  caf::scoped_actor self{*sys};
  auto session = spawn(self, options(sim, 2));
  auto end = await_session(self, session, 20s);
  ASSERT_TRUE(end) << to_string(end.error());
  ASSERT_EQ(end->state, session_state::finished) << end->text;
  const auto history = rt->history("tpu-1");
  ASSERT_TRUE(history);
  const auto report = tpu_end_of(*history);
  ASSERT_TRUE(report);
  // Nothing to diagnose: the next trial is the planner's next mesh.
  ASSERT_EQ(report->trials.size(), 2u);
  for (const auto& t : report->trials) {
    EXPECT_EQ(t.step_time_ms, 0);
    EXPECT_EQ(t.error, "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of "
                       "memory in memory space hbm. Used 40.10G of 31.25G hbm.");
  }
  EXPECT_NE(report->trials[0].mesh, report->trials[1].mesh);
  EXPECT_EQ(report->best_trial, 0);
}

TEST_F(tpu_session_test, a_trainer_that_prints_no_maxtext_line_ends_the_session) {
  const auto sim = simulator("echo 'not a trainer'\nexit 0");
  caf::scoped_actor self{*sys};
  auto session = spawn(self, options(sim, 3));
  auto end = await_session(self, session, 20s);
  ASSERT_TRUE(end) << to_string(end.error());
  EXPECT_EQ(end->state, session_state::failed);
  EXPECT_EQ(end->text,
            "paratune-tpu-sim printed no MaxText line for trial 1 (exit status 0): not a trainer");
}

// A daemon that restarts runs a stored session on: its ended runs count,
// the one that never ended (stored before trials were proposals, so no
// validator knows it) is recorded as interrupted and run again.
TEST_F(tpu_session_test, a_resumed_session_goes_on_from_its_stored_runs) {
  const auto sim = simulator(maxtext_steps);
  auto o = options(sim, 3);
  store_only("tpu-1", opened_record(o));
  wire::tpu_trial_row first{1, "replica=1,data=4,model=4,seq=1", 300, "", "communication", "",
                            "simulated", "", 0, 1000, 2000};
  store_only("tpu-1", first);
  wire::proposal_set set;
  set.proposals.push_back({});
  set.proposals[0].title = "Trade model for fsdp";
  set.proposals[0].mesh = "fsdp=4,model=4";
  store_only("tpu-1.t1", set);
  wire::tpu_trial_row second{2, "data=2,model=8", 0, "", "", "", "simulated", "", 0, 2500, 0};
  store_only("tpu-1", second);
  o.resume = true;
  caf::scoped_actor self{*sys};
  auto session = spawn(self, o);
  // Runs end undiagnosed here (no agents): store_only answers them.
  for (int n : {3}) {
    const auto sid = "tpu-1.t" + std::to_string(n);
    ASSERT_TRUE(await_records(sid, 1)) << sid;
    wire::diagnosis d;
    d.bottleneck = "compute";
    store_only(sid, d);
    store_only(sid, wire::proposal_set{});
    caf::anon_send(session, replay_atom_v);
  }
  auto end = await_session(self, session, 20s);
  ASSERT_TRUE(end) << to_string(end.error());
  ASSERT_EQ(end->state, session_state::finished) << end->text;
  const auto report = tpu_end_of(*rt->history("tpu-1"));
  ASSERT_TRUE(report);
  ASSERT_EQ(report->trials.size(), 3u);
  EXPECT_EQ(report->trials[0].step_time_ms, 300);
  EXPECT_EQ(report->trials[1].error, "interrupted: the daemon stopped while it ran");
  // The budget (3) is spent: trial 3 runs trial 2's mesh again.
  EXPECT_EQ(report->trials[2].retry_of, 2);
  EXPECT_EQ(report->trials[2].mesh, "data=2,model=8");
  EXPECT_EQ(report->trials[2].step_time_ms, 250.5);
  EXPECT_EQ(report->best_trial, 2 + 1);
}

} // namespace
} // namespace paratune
