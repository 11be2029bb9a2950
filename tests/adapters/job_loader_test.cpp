// A job's files: relative paths mean the job file's folder, a submitted job
// carries its model and cluster inline, and a key given twice is refused.

#include "adapters/config/job_loader.hpp"

#include <filesystem>
#include <functional>
#include <optional>

#include <gtest/gtest.h>

#include "adapters/config/catalog.hpp"
#include "adapters/config/job_inlining.hpp"
#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"
#include "tests/fixtures/job_folders.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

/// A job of `model` on dgx-a100-80g (the layout of test::job_folders).
std::string job_yaml(const std::string& model) {
  return "name: paths\nmodel: " + model + "\ncluster: dgx-a100-80g\nnodes: 1\n"
         "initial: {tp: 1, pp: 1, mbs: 1, gbs: 512, seq: 4096}\ntrials: 3\n";
}

std::string refusal_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const input_error& e) {
    return e.what();
  }
  return "(accepted)";
}

/// test::job_folders, run from its other folder.
struct job_paths : ::testing::Test {
  void SetUp() override {
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
    dir = test::make_temp_dir("job-paths");
    folders.emplace(dir);
    job = folders->write_job("job.yaml", "models/my.yaml", "dgx-a100-80g");
    previous = fs::current_path();
    fs::current_path(folders->cwd);
  }
  void TearDown() override {
    fs::current_path(previous);
    fs::remove_all(dir);
  }

  std::string dir, job;
  std::optional<test::job_folders> folders;
  fs::path previous;
};

TEST_F(job_paths, a_relative_model_path_means_the_file_beside_the_job_not_the_working_directory) {
  const auto spec = load_job(job);
  EXPECT_EQ(spec.model.name, "job-folder-model");
  EXPECT_EQ(spec.model.layers, 24);
  // Named relative to the working directory, the job's folder is still the one.
  const auto relative = load_job("../jobs/job.yaml");
  EXPECT_EQ(relative.model.layers, 24);
  EXPECT_EQ(job_folder("../jobs/job.yaml"), fs::canonical(dir + "/cwd").string() + "/../jobs");
}

TEST_F(job_paths, a_relative_cluster_path_is_resolved_and_handed_to_the_simulator_resolved) {
  const auto file = test::write_file(
    dir + "/jobs", "cluster-job.yaml",
    "model: llama3-8b\ncluster: clusters/mine.yaml\ninitial: {tp: 8, gbs: 512, seq: 4096}\n");
  const auto spec = load_job(file);
  EXPECT_EQ(spec.cluster.name, load_cluster("dgx-h100").name);
  EXPECT_EQ(spec.cluster_ref, fs::absolute(dir + "/jobs/clusters/mine.yaml").string());
}

TEST_F(job_paths, a_missing_file_beside_the_job_is_not_looked_for_in_the_working_directory) {
  const auto file = test::write_file(dir + "/jobs", "other.yaml", job_yaml("other/my.yaml"));
  fs::create_directories(dir + "/cwd/other");
  test::write_file(dir + "/cwd/other", "my.yaml", test::small_model_yaml("cwd-model", 16));
  EXPECT_EQ(refusal_of([&] { load_job(file); }),
            file + ": " + fs::absolute(dir + "/jobs/other/my.yaml").string() + ": no such file");
}

TEST_F(job_paths, the_daemon_refuses_a_model_or_cluster_file_path_relative_or_absolute) {
  EXPECT_EQ(refusal_of([&] { load_job_text(job_yaml("models/my.yaml"), "job.yaml"); }),
            "job.yaml: field 'model': 'models/my.yaml' is a file path, and the daemon reads no "
            "model file a job names: paratune submit sends the model file's fields inline (a "
            "mapping under 'model:')");
  const auto absolute = dir + "/jobs/models/my.yaml";
  EXPECT_EQ(refusal_of([&] { load_job_text(job_yaml(absolute), "job.yaml"); }),
            "job.yaml: field 'model': '" + absolute + "' is a file path, and the daemon reads no "
            "model file a job names: paratune submit sends the model file's fields inline (a "
            "mapping under 'model:')");
  EXPECT_EQ(refusal_of([&] {
              load_job_text("model: llama3-8b\ncluster: c.yaml\ninitial: {gbs: 512, seq: 4096}\n",
                            "the submitted job");
            }),
            "the submitted job: field 'cluster': 'c.yaml' is a file path, and the daemon reads "
            "no cluster file a job names: paratune submit sends the cluster file's fields inline "
            "(a mapping under 'cluster:')");
}

TEST_F(job_paths, the_daemon_refuses_a_relative_replay_table_but_a_shipped_one_stays_a_name) {
  const auto text = job_yaml("llama3-8b") + "pools:\n  - {name: r, kind: replay, table: t/x.csv}\n";
  EXPECT_EQ(refusal_of([&] { load_job_text(text, "job.yaml"); }),
            "job.yaml: pools[0]: field 'table': 't/x.csv' is a relative path, which the daemon "
            "cannot resolve: give an absolute path (paratune submit does so from the job file's "
            "folder)");
}

TEST_F(job_paths, submit_inlines_the_model_file_beside_the_job_and_the_daemon_reads_it) {
  const auto sent = inline_job_files(job);
  EXPECT_EQ(sent.rfind("# model: models/my.yaml (" + fs::absolute(dir + "/jobs").string()
                         + "/models/my.yaml), inlined by paratune submit\n",
                       0),
            0u)
    << sent;
  const auto spec = load_job_text(sent, "job.yaml");
  EXPECT_EQ(spec.model.name, "job-folder-model");
  EXPECT_EQ(spec.model.layers, 24);
  EXPECT_EQ(spec.model.kv_heads, 2);
  EXPECT_EQ(spec.trials, 3);
  EXPECT_EQ(spec.cluster_ref, "dgx-a100-80g"); // a catalog name is sent as the name
}

TEST_F(job_paths, an_inline_cluster_reaches_the_simulator_as_flow_yaml_it_can_load) {
  const auto file = test::write_file(
    dir + "/jobs", "cluster-job.yaml",
    "model: llama3-8b\ncluster: clusters/mine.yaml\ninitial: {tp: 8, gbs: 512, seq: 4096}\n");
  const auto spec = load_job_text(inline_job_files(file), "cluster-job.yaml");
  EXPECT_EQ(spec.cluster_ref.front(), '{') << spec.cluster_ref;
  const auto simulated = load_cluster(spec.cluster_ref);
  const auto shipped = load_cluster("dgx-h100");
  EXPECT_EQ(simulated.name, shipped.name);
  EXPECT_EQ(simulated.devices_per_node, shipped.devices_per_node);
  EXPECT_EQ(simulated.device.hbm_gib, shipped.device.hbm_gib);
  EXPECT_EQ(simulated.scale_out.gbps, shipped.scale_out.gbps);
}

TEST_F(job_paths, a_job_naming_no_file_is_sent_as_written) {
  const auto text = "# kept\n" + job_yaml("llama3-8b");
  const auto file = test::write_file(dir + "/jobs", "plain.yaml", text);
  EXPECT_EQ(inline_job_files(file), text);
}

TEST_F(job_paths, a_key_given_twice_is_refused_with_both_lines_at_the_top_level) {
  const auto file = test::write_file(dir + "/jobs", "twice.yaml",
                                     job_yaml("llama3-8b") + "precision: fp16\ntrials: 9\n");
  EXPECT_EQ(refusal_of([&] { load_job(file); }),
            file + ": line 8: key 'trials' appears twice (first on line 6)");
  EXPECT_EQ(refusal_of([&] { load_job_text(job_yaml("llama3-8b") + "trials: 9\n", "job.yaml"); }),
            "job.yaml: line 7: key 'trials' appears twice (first on line 6)");
}

TEST_F(job_paths, a_key_given_twice_is_refused_at_every_depth_the_earliest_first) {
  const auto nested = job_yaml("llama3-8b")
                      + "simulation:\n  seed: 7\n  train_iters: 12\n  seed: 8\nname: again\n";
  EXPECT_EQ(refusal_of([&] { load_job_text(nested, "job.yaml"); }),
            "job.yaml: line 10: key 'seed' appears twice (first on line 8)");
  EXPECT_EQ(refusal_of([&] {
              load_job_text(job_yaml("llama3-8b")
                              + "pools:\n  - name: a\n    kind: simulated\n    name: b\n",
                            "job.yaml");
            }),
            "job.yaml: line 10: key 'name' appears twice (first on line 8)");
  EXPECT_EQ(refusal_of([&] { yaml_fields::load_text("a: {b: {c: 1, c: 2}}\n", "x.yaml"); }),
            "x.yaml: line 1: key 'c' appears twice (first on line 1)");
}

TEST_F(job_paths, a_key_given_twice_in_a_model_file_is_refused_naming_that_file) {
  test::write_file(dir + "/jobs/models", "my.yaml",
                   test::small_model_yaml("job-folder-model", 24) + "layers: 32\n");
  const auto model = fs::absolute(dir + "/jobs/models/my.yaml").string();
  EXPECT_EQ(refusal_of([&] { load_job(job); }),
            job + ": " + model + ": line 10: key 'layers' appears twice (first on line 3)");
}

TEST(yaml_fields, aliases_are_walked_once_and_a_repeated_alias_is_no_repeated_key) {
  const auto n = yaml_fields::load_text(
    "base: &b {x: 1, y: 2}\nlist: [*b, *b, *b]\nother: *b\n", "aliases.yaml");
  EXPECT_EQ(n["other"]["y"].as<int>(), 2);
}

} // namespace
} // namespace paratune
