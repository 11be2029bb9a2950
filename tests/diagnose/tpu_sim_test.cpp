// paratune-tpu-sim: simulated TPU runs written as Xprof tool outputs that
// the readers and the Analyzer take as they would a real profile, and the
// closed loop `paratune tune` runs on a TPU experiment.

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "adapters/diagnosis/diagnosis_run.hpp"
#include "adapters/maxtext/maxtext_log_parser.hpp"
#include "adapters/maxtext/step_scoring.hpp"
#include "core/tpu/maxtext_args.hpp"
#include "adapters/diagnosis/evidence_sources.hpp"
#include "adapters/profile/xprof_reader.hpp"
#include "messages/codec.hpp"
#include "messages/diagnosis_conversions.hpp"
#include "storage/message_pool.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

/// A program's status and stdout, run without a shell.
test::program_result run(std::vector<std::string> argv) {
  test::use_source_configs();  // the child inherits PARATUNE_CONFIGS
  return test::run_program(argv);
}

struct tpu_sim : ::testing::Test {
  void SetUp() override {
    test::use_source_configs();
    dir = test::make_temp_dir("tpu-sim");
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string sim() const { return test::bin_dir() + "/paratune-tpu-sim"; }
  std::string dir;
};

TEST_F(tpu_sim, a_run_writes_xprof_tools_the_analyzer_reads) {
  const auto exp = test::asap_dir("v5e-256-comm") + "/experiment.yaml";
  auto r = run({sim(), "run", "--experiment", exp, "--out", dir + "/run", "--seed", "3"});
  ASSERT_EQ(r.status, 0);
  const auto line = nlohmann::json::parse(r.out);
  EXPECT_TRUE(line["ok"].get<bool>());
  const double step = line["step_time_ms"].get<double>();
  const auto files = find_xprof_tool_files(dir + "/run");
  ASSERT_EQ(files.size(), 3u);  // overview_page, op_profile, roofline_model
  const auto p = read_xprof_dir(dir + "/run");
  EXPECT_FALSE(p.partial);
  EXPECT_NEAR(*p.kpis.step_time_avg_ms, step, 0.1);
  EXPECT_NEAR(*p.kpis.device_duty_cycle_percent, 99.8, 0.05);
  // Same seed, same run; another seed draws another hidden truth.
  auto again = run({sim(), "run", "--experiment", exp, "--out", dir + "/again", "--seed", "3"});
  EXPECT_EQ(nlohmann::json::parse(again.out)["step_time_ms"], line["step_time_ms"]);
  auto other = run({sim(), "run", "--experiment", exp, "--out", dir + "/other", "--seed", "4"});
  EXPECT_NE(nlohmann::json::parse(other.out)["step_time_ms"], line["step_time_ms"]);
}

// Given MaxText's base_output_directory and run_name, the simulator leaves
// a raw XSpace where MaxText's profiler would; diagnosing the run's folder
// finds it and reads what the tool JSON of the same run says.
TEST_F(tpu_sim, a_run_leaves_its_xplane_where_maxtext_does) {
  const auto exp_path = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
  auto r = run({sim(), "run", "--experiment", exp_path, "--out", dir + "/tools",
                "--base-output-directory", dir + "/gs", "--run-name", "llama", "--seed", "3"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto line = nlohmann::json::parse(r.out);
  const fs::path xplane = line["xplane"].get<std::string>();
  EXPECT_EQ(xplane.filename(), "paratune-tpu-sim.xplane.pb");
  EXPECT_EQ(xplane.parent_path().parent_path(),
            fs::path(dir) / "gs/llama/tensorboard/plugins/profile");
  EXPECT_EQ(xplane.parent_path().filename().string().size(), 19u);  // 2026_11_27_15_22_49
  const auto exp = test::load_fixture_experiment(test::asap_dir("v6e-16-hbm"));
  evidence_request raw, tools;
  raw.xprof = dir + "/gs/llama";
  tools.xprof = dir + "/tools";
  const auto from_xplane = run_diagnosis(exp, gather_evidence(raw), {}, {});
  const auto from_tools = run_diagnosis(exp, gather_evidence(tools), {}, {});
  EXPECT_NEAR(*from_xplane.evidence.kpis.step_time_ms, line["step_time_ms"].get<double>(), 1e-6);
  EXPECT_NEAR(*from_xplane.evidence.kpis.comm_percent, *from_tools.evidence.kpis.comm_percent,
              1e-6);
  // The XSpace's duty cycle is its ops' time, which the simulator's op
  // shares fill to within 0.001% of the duty cycle the tool JSON states.
  EXPECT_NEAR(*from_xplane.evidence.kpis.duty_cycle_percent,
              *from_tools.evidence.kpis.duty_cycle_percent, 1e-3);
  EXPECT_EQ(from_xplane.report.bottleneck, bottleneck_class::communication);
  EXPECT_EQ(from_xplane.report.bottleneck, from_tools.report.bottleneck);
  ASSERT_FALSE(from_xplane.proposals.proposals.empty());
  EXPECT_EQ(*from_xplane.proposals.proposals[0].mesh, *from_tools.proposals.proposals[0].mesh);
  // Without either destination the run has nowhere to put its profile.
  EXPECT_EQ(run({sim(), "run", "--experiment", exp_path}).status, 2);
}

TEST_F(tpu_sim, waiting_collectives_read_as_communication) {
  // The v6e stand-in gathers the whole model over a 4-chip line every
  // micro-step: the simulated profile is dominated by collective waits.
  const auto exp_path = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
  ASSERT_EQ(run({sim(), "run", "--experiment", exp_path, "--out", dir + "/run"}).status, 0);
  evidence_request r;
  r.xprof = dir + "/run";
  const auto out = run_diagnosis(test::load_fixture_experiment(test::asap_dir("v6e-16-hbm")),
                                 gather_evidence(r), {}, {});
  EXPECT_EQ(out.report.bottleneck, bottleneck_class::communication) << out.report.summary;
  ASSERT_FALSE(out.proposals.proposals.empty());
  EXPECT_EQ(*out.proposals.proposals[0].mesh, parse_mesh("replica=1,data=4,model=4,seq=1"));
}

TEST_F(tpu_sim, a_mesh_that_does_not_fit_fails_like_xla) {
  const auto exp = test::asap_dir("v5p-512-compute") + "/experiment.yaml";
  auto r = run({sim(), "run", "--experiment", exp, "--mesh", "data=64,model=8", "--out", dir + "/x"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.out.find("RESOURCE_EXHAUSTED"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/x/op_profile.json"));
  auto bad = run({sim(), "run", "--experiment", exp, "--mesh", "data=3", "--out", dir + "/y"});
  EXPECT_EQ(bad.status, 3);
  auto missing = run({sim(), "run", "--experiment", dir + "/none.yaml", "--out", dir + "/z"});
  EXPECT_EQ(missing.status, 2);
}

// The simulator refuses what MaxText refuses, with MaxText's exception
// (core/tpu/maxtext_rule_table.cpp, ici_product: max_utils.py:479).
TEST_F(tpu_sim, a_mesh_short_of_the_slice_is_refused_as_maxtext_refuses_it) {
  const auto exp = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
  auto r = run({sim(), "run", "--experiment", exp, "--mesh", "data=2,model=2", "--out",
                dir + "/x"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.out.find("AssertionError: Number of devices per slice 16 does not match the "
                       "product of the ICI parallelism 4"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(dir + "/x/op_profile.json"));
  // The experiment's own mesh (seq=4, MaxText's context axis) runs.
  EXPECT_EQ(run({sim(), "run", "--experiment", exp, "--out", dir + "/y"}).status, 0);
}

// `train` is MaxText's train.py on the simulated slice: its overrides in,
// its log lines and its profiler's XSpace out.
TEST_F(tpu_sim, train_prints_maxtext_steps_and_profiles_where_maxtext_does) {
  const auto exp_path = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
  const auto exp = test::load_fixture_experiment(test::asap_dir("v6e-16-hbm"));
  const maxtext_launch launch{exp.model, parse_mesh("data=4,model=4"), exp.dcn_mesh, exp.workload,
                              exp.slice.chips()};
  std::vector<std::string> argv = {sim(), "train", "--seed", "3", exp_path, "steps=5",
                                   "run_name=llama", "base_output_directory=" + dir + "/gs",
                                   "profiler=xplane", "dataset_type=synthetic"};
  for (const auto& kv : checked_maxtext_args(launch))
    argv.push_back(kv);
  const auto r = run(argv);
  ASSERT_EQ(r.status, 0) << r.err;
  maxtext_log_parser parser;
  parser.feed(r.out);
  parser.finish();
  const auto& log = parser.log();
  ASSERT_EQ(log.steps.size(), 5u);
  EXPECT_EQ(log.steps[0].phase, step_phase::compile);
  EXPECT_TRUE(log.errors.empty());
  EXPECT_NEAR(*log.parameters_billion, exp.model.parameters() / 1e9, 1e-3);
  const auto score = score_of(log.steps);
  EXPECT_EQ(score.scored, 4);
  // The same mesh and seed under `run`: the profile's step, which the
  // logged steps scatter around (each run draws its own noise of 1%).
  const auto same = run({sim(), "run", "--experiment", exp_path, "--mesh", "data=4,model=4",
                         "--seed", "3", "--out", dir + "/tools"});
  ASSERT_EQ(same.status, 0) << same.err;
  const double step_ms = nlohmann::json::parse(same.out)["step_time_ms"].get<double>();
  EXPECT_NEAR(score.step_ms, step_ms, step_ms * 0.025);
  // Tokens per device: the batch MaxText trains, 32 x 2048, over 16 chips.
  EXPECT_NEAR(score.tokens_per_s_per_device, 32.0 * 2048 / 16 / (score.step_ms / 1000),
              score.tokens_per_s_per_device * 1e-3);
  evidence_request raw;
  raw.xprof = dir + "/gs/llama";
  auto run_exp = exp;
  run_exp.mesh = launch.ici;
  const auto d = run_diagnosis(run_exp, gather_evidence(raw), {}, {});
  EXPECT_NEAR(*d.evidence.kpis.step_time_ms, score.step_ms, score.step_ms * 0.01);
}

TEST_F(tpu_sim, train_refuses_what_maxtext_refuses_in_its_words) {
  const auto exp_path = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
  auto train = [&](std::vector<std::string> overrides) {
    std::vector<std::string> argv = {sim(), "train", exp_path, "steps=3"};
    argv.insert(argv.end(), overrides.begin(), overrides.end());
    return run(argv);
  };
  // The mesh must cover the slice (max_utils.py:479); `sequence` is no
  // axis any more, so its 4 is dropped before the product is taken.
  for (const auto& extra : {std::string("ici_tensor_parallelism=1"),
                            std::string("ici_sequence_parallelism=4")}) {
    const auto r = train({"ici_data_parallelism=4", "ici_fsdp_parallelism=1",
                          "ici_context_parallelism=1", extra});
    EXPECT_EQ(r.status, 1) << extra;
    EXPECT_NE(r.err.find("AssertionError: Number of devices per slice 16 does not match the "
                         "product of the ICI parallelism 4"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("completed step"), std::string::npos) << r.out;
  }
  // A value MaxText's config cannot take stops it too, naming the key.
  const auto bad = train({"per_device_batch_size=many"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("ValueError: MaxText override per_device_batch_size=many is not a number"),
            std::string::npos)
      << bad.err;
  // A key MaxText has and the simulation does not read is accepted.
  EXPECT_EQ(train({"dataset_path=gs://bucket/c4", "enable_checkpointing=false"}).status, 0);
  // The experiment is the trainer's own input: a missing one is bad input.
  EXPECT_EQ(run({sim(), "train", dir + "/none.yaml"}).status, 2);
}

// A catalog model MaxText ships is exported by its model_name: the
// simulated trainer reads that file's model, refuses a key written against
// it as MaxText's pyconfig does, and a model that is not the experiment's.
TEST_F(tpu_sim, train_reads_the_model_file_model_name_names) {
  const auto exp_path = test::asap_dir("v5e-256-comm") + "/experiment.yaml";
  const auto exp = test::load_fixture_experiment(test::asap_dir("v5e-256-comm"));
  const maxtext_launch launch{exp.model, exp.mesh, exp.dcn_mesh, exp.workload,
                              exp.slice.chips()};
  auto train = [&](std::vector<std::string> extra) {
    std::vector<std::string> argv = {sim(), "train", exp_path, "steps=2"};
    for (const auto& kv : checked_maxtext_args(launch))
      argv.push_back(kv);
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run(argv);
  };
  const auto args = checked_maxtext_args(launch);
  EXPECT_NE(std::find(args.begin(), args.end(), "model_name=llama3-8b"), args.end());
  const auto ok = train({});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("completed step: 1"), std::string::npos) << ok.out;

  const auto twice = train({"rope_max_timescale=10000"});
  EXPECT_EQ(twice.status, 1);
  EXPECT_NE(twice.err.find("File \"src/maxtext/configs/pyconfig.py\", line 147\n"
                           "ValueError: Keys ['rope_max_timescale'] are overridden by both "
                           "model config and CLI/kwargs with different values."),
            std::string::npos)
      << twice.err;
  EXPECT_EQ(twice.out.find("completed step"), std::string::npos);

  const auto unknown = train({"model_name=llama3-7b"});
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.err.find("pydantic_core._pydantic_core.ValidationError: 1 validation error "
                             "for MaxTextConfig model_name"),
            std::string::npos)
      << unknown.err;

  // override_model_config lets the key through, and the run is then not
  // the experiment's model.
  const auto other = train({"override_model_config=true", "rope_max_timescale=10000"});
  EXPECT_EQ(other.status, 1);
  EXPECT_NE(other.err.find("ValueError: MaxText override rope_max_timescale=10000 is not the "
                           "experiment's model (500000)"),
            std::string::npos)
      << other.err;
}

TEST_F(tpu_sim, train_runs_out_of_hbm_as_xla_does) {
  const auto exp_path = test::asap_dir("v5p-512-compute") + "/experiment.yaml";
  const auto exp = test::load_fixture_experiment(test::asap_dir("v5p-512-compute"));
  const maxtext_launch launch{exp.model, parse_mesh("data=64,model=8"), exp.dcn_mesh, exp.workload,
                              exp.slice.chips()};
  std::vector<std::string> argv = {sim(), "train", exp_path};
  for (const auto& kv : render_maxtext_args(launch))
    argv.push_back(kv);
  const auto r = run(argv);
  EXPECT_EQ(r.status, 1);
  maxtext_log_parser parser;
  parser.feed(r.err);
  parser.finish();
  ASSERT_EQ(parser.log().errors.size(), 1u) << r.err;
  EXPECT_EQ(parser.log().errors[0].kind, log_error_kind::oom);
  EXPECT_EQ(parser.log().errors[0].message.rfind(
                "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in "
                "memory space hbm.",
                0),
            0u);
}

TEST_F(tpu_sim, the_fixture_mode_rebuilds_the_committed_asap_profiles) {
  const auto s = test::asap_dir("v6e-16-hbm");
  ASSERT_EQ(run({sim(), "fixture", "--spec", s + "/paper.yaml", "--out", dir + "/f"}).status, 0);
  for (const char* tool : {"overview_page.json", "op_profile.json", "roofline_model.json"}) {
    std::ifstream a(s + "/" + tool), b(dir + "/f/" + tool);
    std::string x{std::istreambuf_iterator<char>(a), {}}, y{std::istreambuf_iterator<char>(b), {}};
    EXPECT_EQ(x, y) << tool;
  }
}

TEST_F(tpu_sim, tune_diagnoses_every_run_and_starts_at_the_planners_fastest) {
  const auto exp = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
  auto r = run({test::bin_dir() + "/paratune", "tune", exp, "--trials", "4", "--json", "--db",
                dir + "/pool"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& trials = j["trials"];
  ASSERT_EQ(trials.size(), 4u);
  for (const auto& t : trials) {
    EXPECT_GT(t["step_time_ms"].get<double>(), 0);
    EXPECT_FALSE(t["bottleneck"].get<std::string>().empty());
  }
  // The model puts the job's own mesh 4.6 times slower than the planner's
  // fastest, ASAP's expert mesh, so that runs first (first_mesh_trial), and
  // the planner's next ones after it are slower.
  EXPECT_EQ(parse_mesh(trials[0]["mesh"].get<std::string>()),
            parse_mesh("replica=1,data=4,model=4,seq=1"));
  // (Predicted under the calibration the first run's XSpace gave.)
  EXPECT_EQ(trials[0]["next"], "The planner's #2 fastest mesh (predicted 917 ms per step)");
  EXPECT_EQ(parse_mesh(trials[1]["mesh"].get<std::string>()), parse_mesh("data=2,model=8"));
  EXPECT_LT(trials[0]["step_time_ms"].get<double>(), trials[1]["step_time_ms"].get<double>());
  EXPECT_EQ(j["best"]["trial"], 1);
  // Every run's diagnosis and proposals are in the pool; no run improved on
  // the first, so the history ledger holds its five seeds alone.
  auto pool = message_pool::open(dir + "/pool");
  ASSERT_TRUE(pool);
  const std::string session = j["session"];
  auto t1 = (*pool)->session_history(session + ".t1");
  ASSERT_TRUE(t1);
  ASSERT_EQ(t1->size(), 3u);
  EXPECT_EQ((*t1)[1].type, "diagnosis");
  EXPECT_EQ((*t1)[2].type, "proposal_set");
  auto ledger = (*pool)->session_history(wire::optimization_ledger);
  ASSERT_TRUE(ledger);
  EXPECT_EQ(wire::optimizations_of(*ledger).size(), 5u);
}

// `report` reads a TPU session back from its pool: the same document
// `tune --json` printed, and markdown and HTML that state the best mesh first.
TEST_F(tpu_sim, report_reads_a_tpu_session_back_in_every_format) {
  const auto exp = test::asap_dir("v6e-16-hbm") + "/experiment.yaml";
  auto tuned = run({test::bin_dir() + "/paratune", "tune", exp, "--trials", "3", "--json", "--db",
                    dir + "/pool"});
  ASSERT_EQ(tuned.status, 0) << tuned.out << tuned.err;
  const auto j = nlohmann::json::parse(tuned.out);
  const std::string session = j["session"];
  EXPECT_EQ(j["state"], "finished");
  auto report = [&](const std::string& format) {
    return run({test::bin_dir() + "/paratune", "report", session, "--db", dir + "/pool",
                "--format", format});
  };
  const auto as_json = report("json");
  ASSERT_EQ(as_json.status, 0) << as_json.err;
  EXPECT_EQ(nlohmann::json::parse(as_json.out), j);
  const auto best_mesh = j["best"]["mesh"].get<std::string>();
  const auto md = report("md");
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_EQ(md.out.rfind("# paratune report: TPU session " + session + "\n\n**Best mesh:** `"
                         + best_mesh + "`, ",
                         0),
            0u)
      << md.out;
  // The first trial went to the planner's fastest mesh, which stayed the
  // fastest, and the job's own mesh did not run within 3 trials: the answer
  // says so, not a speedup over whichever mesh ran first.
  EXPECT_EQ(j["job_mesh"], "replica=1,data=4,seq=4,model=1");
  ASSERT_EQ(j["best"]["trial"], 1);
  EXPECT_EQ(j["best"]["baseline_trial"], 0);
  EXPECT_EQ(j["best"]["speedup"], 0.0);
  for (const auto& t : j["trials"])
    EXPECT_EQ(t["job_mesh"], false) << t.dump();
  EXPECT_NE(md.out.find("(trial 1), the job's own mesh (replica=1,data=4,seq=4,model=1) was not "
                        "run: nothing measured to compare with."),
            std::string::npos)
      << md.out;
  // One table row per run.
  EXPECT_NE(md.out.find("| 3 | "), std::string::npos) << md.out;
  const auto html = report("html");
  ASSERT_EQ(html.status, 0) << html.err;
  EXPECT_NE(html.out.find("<p class=\"answer\"><b>Best mesh:</b> <code>" + best_mesh + "</code>"),
            std::string::npos)
      << html.out;
  size_t rows = 0;
  for (auto at = html.out.find("<tr data-trial="); at != std::string::npos;
       at = html.out.find("<tr data-trial=", at + 1))
    ++rows;
  EXPECT_EQ(rows, 3u);
}

TEST_F(tpu_sim, tune_runs_an_experiment_whose_path_has_a_quote_and_a_space) {
  // Arguments reach paratune-tpu-sim as an argv, not through a shell.
  const auto quoted = dir + "/it's a dir";
  fs::create_directories(quoted);
  fs::copy_file(test::asap_dir("v6e-16-hbm") + "/experiment.yaml", quoted + "/experiment.yaml");
  auto r = run({test::bin_dir() + "/paratune", "tune", quoted + "/experiment.yaml", "--trials",
                "4", "--json", "--db", quoted + "/pool"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["trials"].size(), 4u);
  EXPECT_EQ(parse_mesh(j["trials"][0]["mesh"].get<std::string>()),
            parse_mesh("replica=1,data=4,model=4,seq=1"));
  EXPECT_EQ(j["best"]["trial"], 1);
  EXPECT_EQ(parse_mesh(j["best"]["mesh"].get<std::string>()),
            parse_mesh("replica=1,data=4,model=4,seq=1"));
  EXPECT_NEAR(j["best"]["step_time_ms"].get<double>(), 844.3, 844.3 * 0.01);
  const std::string session = j["session"];
  // MaxText's profiler layout under the run's base_output_directory.
  EXPECT_TRUE(find_newest_xplane_capture(quoted + "/pool.runs/" + session + "/t4"));
}

TEST_F(tpu_sim, tune_keeps_the_simulators_stderr_out_of_its_output) {
  // The simulator's stderr shares the pipe paratune reads its answer from.
  const auto noisy = test::write_file(dir, "noisy-tpu-sim",
                                      "#!/bin/sh\necho 'noisy simulator warning' >&2\nexec '"
                                        + sim() + "' \"$@\"\n");
  chmod(noisy.c_str(), 0755);
  setenv("PARATUNE_TPU_SIM", noisy.c_str(), 1);
  auto r = run({test::bin_dir() + "/paratune", "tune",
                test::asap_dir("v6e-16-hbm") + "/experiment.yaml", "--trials", "2", "--db",
                dir + "/pool"});
  unsetenv("PARATUNE_TPU_SIM");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("trial  1  data=4,model=4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("trial  2  data=2,model=8"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("noisy simulator warning"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("noisy simulator warning"), std::string::npos) << r.err;
}

TEST_F(tpu_sim, tune_ends_with_the_reason_when_the_simulator_cannot_start) {
  const auto missing = dir + "/no-tpu-sim";
  setenv("PARATUNE_TPU_SIM", missing.c_str(), 1);
  const auto started = std::chrono::steady_clock::now();
  auto r = run({test::bin_dir() + "/paratune", "tune",
                test::asap_dir("v6e-16-hbm") + "/experiment.yaml", "--db", dir + "/pool"});
  unsetenv("PARATUNE_TPU_SIM");
  EXPECT_EQ(r.status, 1) << r.out;
  // As a GPU job's pool: three runs that never started pause it, and with
  // no pool left the session ends with the launcher's own words.
  EXPECT_NE(r.err.find("error: no pool is left to run trials on: pool 'simulated': 3 trials in a "
                       "row never started (last: exec " + missing
                       + " failed: No such file or directory)"),
            std::string::npos)
    << r.err;
  EXPECT_EQ(r.out.find("best:"), std::string::npos) << r.out;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
}

} // namespace
} // namespace paratune
