// A job file is read strictly: a key paratune does not read is refused
// with the file, the line and the nearest known key, at the top level and
// inside search:, early_stop:, simulation:, an inline model or cluster and
// each pool; and YAML's booleans are booleans wherever a flag is expected.
#include <filesystem>
#include <functional>

#include <gtest/gtest.h>

#include "adapters/config/catalog.hpp"
#include "adapters/config/job_loader.hpp"
#include "core/input_error.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

// Line 1 to 6 of every job below; a test's own lines follow from line 7.
const std::string job_head = "name: strict\n"
                             "model: llama3-8b\n"
                             "cluster: dgx-a100-80g\n"
                             "nodes: 1\n"
                             "initial: {tp: 1, pp: 1, mbs: 1, gbs: 64, seq: 4096}\n"
                             "trials: 3\n";

// A small model given inline, on lines 2 to 8; `extra` adds its own lines.
std::string inline_model_job(const std::string& extra) {
  return "name: strict\n"
         "model:\n"
         "  name: tiny\n"
         "  layers: 4\n"
         "  hidden: 1024\n"
         "  heads: 16\n"
         "  vocab: 32000\n"
         "  ffn: 4096\n"
         + extra
         + "cluster: dgx-a100-80g\n"
           "initial: {tp: 1, pp: 1, mbs: 1, gbs: 64, seq: 2048}\n";
}

// A cluster given inline, its device on line 6 and its scale-up link on
// line 7; `bandwidth` is the device's last field, `link_extra` ends the link's.
std::string inline_cluster_job(const std::string& bandwidth, const std::string& link_extra) {
  return "name: strict\nmodel: llama3-8b\n"
         "cluster:\n"
         "  name: box\n"
         "  devices_per_node: 8\n"
         "  device: {name: gpu, peak_tflops_16: 312, hbm_gib: 80, " + bandwidth + "}\n"
         "  scale_up: {name: nvlink, gbps: 2400" + link_extra + "}\n"
         "  scale_out: {name: ib, gbps: 200}\n"
         "initial: {tp: 1, pp: 1, mbs: 1, gbs: 64, seq: 4096}\n";
}

// What `load` threw, or "(accepted)".
std::string strict_refusal_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const input_error& e) {
    return e.what();
  }
  return "(accepted)";
}

std::string strict_job_refusal(const std::string& text) {
  return strict_refusal_of([&] { load_job_text(text, "job.yaml"); });
}

struct job_strictness : ::testing::Test {
  void SetUp() override { setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1); }
};

TEST_F(job_strictness, a_misspelled_top_level_key_is_refused_with_its_line_and_the_key_meant) {
  EXPECT_EQ(strict_job_refusal(job_head), "(accepted)");
  EXPECT_EQ(strict_job_refusal(job_head + "trails: 20\n"),
            "job.yaml:7: unknown key 'trails' (did you mean 'trials'?)");
  EXPECT_EQ(strict_job_refusal(job_head + "serach:\n  tp: [1, 2]\n"),
            "job.yaml:7: unknown key 'serach' (did you mean 'search'?)");
  EXPECT_EQ(strict_job_refusal(job_head + "early_stopp: {stable_after: 5}\n"),
            "job.yaml:7: unknown key 'early_stopp' (did you mean 'early_stop'?)");
  // Nothing near: the known keys are listed instead of a wrong guess.
  EXPECT_EQ(strict_job_refusal(job_head + "learning_rate: 3e-4\n"),
            "job.yaml:7: unknown key 'learning_rate' (known: name, framework, model, cluster, nodes, "
            "precision, initial, start, search, trials, tokens, baseline, "
            "retry_transient_failures, simulation, pools, early_stop, reasoner, env, secret_env, "
            "stop)");
}

TEST_F(job_strictness, a_misspelled_nested_key_is_refused_naming_its_mapping) {
  EXPECT_EQ(strict_job_refusal(job_head + "search:\n  tp: [1, 2]\n  recompte: [none, full]\n"),
            "job.yaml:9: search: unknown key 'recompte' (did you mean 'recompute'?)");
  EXPECT_EQ(strict_job_refusal(job_head + "early_stop:\n  stable_afer: 5\n"),
            "job.yaml:8: early_stop: unknown key 'stable_afer' (did you mean 'stable_after'?)");
  EXPECT_EQ(strict_job_refusal(job_head + "simulation: {seed: 7, train_iter: 12}\n"),
            "job.yaml:7: simulation: unknown key 'train_iter' (did you mean 'train_iters'?)");
  EXPECT_EQ(strict_job_refusal(job_head + "simulation: {seed: 7, colour: red}\n"),
            "job.yaml:7: simulation: unknown key 'colour' (known: seed, train_iters, time_scale)");
  EXPECT_EQ(strict_job_refusal(job_head + "baseline: {tp: 2, pp: 1, mbs: 1, gbs: 64, seq: 4096,\n"
                               "           tflops_per_gpus: 180}\n"),
            "job.yaml:8: baseline: unknown key 'tflops_per_gpus' (did you mean "
            "'tflops_per_gpu'?)");
  EXPECT_EQ(strict_job_refusal("name: strict\nmodel: llama3-8b\ncluster: dgx-a100-80g\n"
                    "initial: {tp: 1, pp: 1, mbz: 1, gbs: 64, seq: 4096}\n"),
            "job.yaml:4: initial: unknown key 'mbz' (did you mean 'mbs'?)");
  EXPECT_EQ(strict_job_refusal(job_head + "reasoner:\n  mode: builtin\n  structured_outptu: true\n"),
            "job.yaml:9: reasoner: unknown key 'structured_outptu' (did you mean "
            "'structured_output'?)");
}

TEST_F(job_strictness, an_inline_model_or_cluster_refuses_a_key_on_the_job_files_line) {
  EXPECT_EQ(strict_job_refusal(inline_model_job("")), "(accepted)");
  EXPECT_EQ(strict_job_refusal(inline_model_job("  swiglu: true\n  rmsnrom: true\n")),
            "job.yaml:10: model: unknown key 'rmsnrom' (did you mean 'rmsnorm'?)");
  EXPECT_EQ(strict_job_refusal(inline_cluster_job("hbm_gb: 2039", "")),
            "job.yaml:6: cluster: device: unknown key 'hbm_gb' (did you mean 'hbm_gib'?)");
  EXPECT_EQ(strict_job_refusal(inline_cluster_job("hbm_gbps: 2039", ", latncy_us: 1")),
            "job.yaml:7: cluster: scale_up: unknown key 'latncy_us' (did you mean "
            "'latency_us'?)");
}

TEST_F(job_strictness, a_misspelled_pool_key_is_refused_naming_the_pool_and_its_line) {
  EXPECT_EQ(strict_job_refusal(job_head + "pools:\n"
                               "  - {name: sim, kind: simulated}\n"
                               "  - name: box\n"
                               "    kind: local\n"
                               "    launch: [run.sh, \"{megatron_args}\"]\n"
                               "    capactiy: 2\n"),
            "job.yaml:12: pools[1]: unknown key 'capactiy' (did you mean 'capacity'?)");
}

TEST_F(job_strictness, yaml_booleans_and_zero_or_one_are_flags_anything_else_is_refused) {
  for (const char* yes : {"true", "True", "yes", "on", "1"}) {
    const auto job = load_job_text(inline_model_job(std::string("  swiglu: ") + yes + "\n"
                                                    "  rmsnorm: " + yes + "\n"),
                                   "job.yaml");
    EXPECT_TRUE(job.model.swiglu) << yes;
    EXPECT_TRUE(job.model.rmsnorm) << yes;
  }
  for (const char* no : {"false", "no", "off", "0"}) {
    const auto job = load_job_text(
      inline_model_job(std::string("  swiglu: ") + no + "\n  tied_embeddings: " + no + "\n"),
      "job.yaml");
    EXPECT_FALSE(job.model.swiglu) << no;
    EXPECT_FALSE(job.model.tied_embeddings) << no;
  }
  EXPECT_EQ(strict_job_refusal(inline_model_job("  swiglu: 2\n")),
            "job.yaml: model: line 9: field 'swiglu': expected true or false, got '2'");
  EXPECT_EQ(strict_job_refusal(inline_model_job("  swiglu: [true]\n")),
            "job.yaml: model: line 9: field 'swiglu': expected true or false, got '[true]'");
  EXPECT_TRUE(load_job_text(job_head + "retry_transient_failures: yes\n", "job.yaml")
                .retry_transient);
  EXPECT_FALSE(load_job_text(job_head + "early_stop: {rung: 0}\n", "job.yaml").early_stop->rung);
  EXPECT_TRUE(load_job_text(job_head + "early_stop: {rung: true}\n", "job.yaml").early_stop->rung);
}

TEST_F(job_strictness, a_model_or_cluster_file_refuses_an_unknown_key_naming_itself) {
  const auto dir = test::make_temp_dir("strict-files");
  const auto model = test::write_file(dir, "model.yaml",
                                      "name: tiny\nlayers: 4\nhidden: 1024\nheads: 16\n"
                                      "vocab: 32000\nswigle: true\n");
  EXPECT_EQ(strict_refusal_of([&] { load_model(model); }),
            model + ":6: unknown key 'swigle' (did you mean 'swiglu'?)");
  const auto cluster = test::write_file(
    dir, "cluster.yaml",
    "name: box\ndevices_per_node: 8\n"
    "device: {name: gpu, peak_tflops_16: 312, hbm_gib: 80, hbm_gbps: 2039}\n"
    "scale_up: {name: nvlink, gbps: 2400}\nscale_out: {name: ib, gbps: 200}\nmax_node: 4\n");
  EXPECT_EQ(strict_refusal_of([&] { load_cluster(cluster); }),
            cluster + ":6: unknown key 'max_node' (did you mean 'max_nodes'?)");
  std::filesystem::remove_all(dir);
}

TEST_F(job_strictness, every_shipped_model_and_cluster_file_is_read_strictly_and_passes) {
  for (const auto& name : model_names())
    EXPECT_NO_THROW(load_model(name)) << name;
  for (const auto& name : cluster_names())
    EXPECT_NO_THROW(load_cluster(name)) << name;
}

TEST(inline_model_dimensions, swiglu_takes_true_and_false_as_well_as_one_and_zero) {
  const std::string dims = "layers=4,hidden=1024,heads=16,vocab=32000,swiglu=";
  EXPECT_TRUE(parse_inline_model(dims + "true").swiglu);
  EXPECT_TRUE(parse_inline_model(dims + "True").swiglu); // how YAML may spell it
  EXPECT_FALSE(parse_inline_model(dims + "off").swiglu);
  EXPECT_TRUE(parse_inline_model(dims + "1").swiglu);
  EXPECT_FALSE(parse_inline_model(dims + "false").swiglu);
  EXPECT_FALSE(parse_inline_model(dims + "0").swiglu);
  EXPECT_NE(strict_refusal_of([&] { parse_inline_model(dims + "yes please"); })
              .find("model dimension 'swiglu'"),
            std::string::npos);
}

TEST_F(job_strictness, stop_is_budget_or_a_margin_and_a_confidence_each_in_range) {
  // Without `stop:` the session stops once no candidate is likely to pay.
  const auto plain = load_job_text(job_head, "job.yaml").stop;
  EXPECT_EQ(plain.mode, session_stop_mode::converged);
  EXPECT_DOUBLE_EQ(plain.min_gain, 0.01);
  EXPECT_DOUBLE_EQ(plain.confidence, 0.9);
  EXPECT_EQ(load_job_text(job_head + "stop: budget\n", "job.yaml").stop,
            session_stop_policy::budget());
  const auto set = load_job_text(job_head + "stop: {min_gain: 0.02, confidence: 0.95}\n",
                                 "job.yaml").stop;
  EXPECT_EQ(set, (session_stop_policy{session_stop_mode::converged, 0.02, 0.95}));
  EXPECT_DOUBLE_EQ(load_job_text(job_head + "stop: {confidence: 0.8}\n", "job.yaml").stop.min_gain,
                   0.01);
  EXPECT_EQ(strict_job_refusal(job_head + "stop: never\n"),
            "job.yaml: stop: expected budget or a mapping such as {min_gain: 0.01, confidence: "
            "0.9}, got 'never'");
  EXPECT_EQ(strict_job_refusal(job_head + "stop: {min_gain: 1.5}\n"),
            "job.yaml: stop: line 7: field 'min_gain': 1.5 is outside the allowed range 0..1");
  EXPECT_EQ(strict_job_refusal(job_head + "stop: {confidence: 0.3}\n"),
            "job.yaml: stop: line 7: field 'confidence': 0.3 is outside the allowed range 0.5..0.9999");
  EXPECT_EQ(strict_job_refusal(job_head + "stop: {confidence: high}\n"),
            "job.yaml: stop: line 7: field 'confidence': expected a number in 0.5..0.9999, got 'high'");
  EXPECT_EQ(strict_job_refusal(job_head + "stop: {min_gian: 0.02}\n"),
            "job.yaml:7: stop: unknown key 'min_gian' (did you mean 'min_gain'?)");
}

} // namespace
} // namespace paratune
