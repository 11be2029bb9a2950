// Models from Hugging Face config.json files (issue 45, part 8): each
// catalog model with a published config renders the same Megatron-LM
// arguments from it as from its catalog file; the other architectures read
// as their configs say; what Megatron-LM cannot build is refused naming the
// file and the field; a job's `model: {hf_config: ...}` means the file in
// the job's folder; and paratune submit sends it as the model's fields.

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include <gtest/gtest.h>

#include "adapters/config/catalog.hpp"
#include "adapters/config/hf_config.hpp"
#include "adapters/config/job_inlining.hpp"
#include "adapters/config/job_loader.hpp"
#include "core/input_error.hpp"
#include "core/megatron_args.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

std::string hf_path(const std::string& repo) {
  return test::source_dir() + "/tests/data/hf_configs/" + repo + "/config.json";
}

std::vector<std::string> args_of_model(const model_spec& m) {
  megatron_launch l;
  l.model = m;
  l.config = parse_config("tp=1,pp=1,mbs=1,gbs=8,seq=4096");
  return render_megatron_args(l);
}

std::string hf_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}

struct hf_catalog_pair {
  const char* catalog;
  const char* repo;
};

// Every catalog model with a config.json; the rest have none (see
// tests/data/hf_configs/README.md) and are listed below.
const hf_catalog_pair hf_pairs[] = {
  {"llama2-7b", "meta-llama/Llama-2-7b-hf"},
  {"llama3-8b", "meta-llama/Meta-Llama-3-8B"},
  {"llama3.1-405b", "meta-llama/Llama-3.1-405B"},
  {"tinyllama-1.1b", "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T"},
  {"qwen2.5-0.5b", "Qwen/Qwen2.5-0.5B"},
  {"qwen2.5-7b", "Qwen/Qwen2.5-7B"},
  {"qwen3-moe-a0.6b", "paratune/qwen3-moe-a0.6b"},
};
const char* const without_hf_form[] = {"gpt-vtrain-h1024-l24", "gpt3-7b", "llama2-0.5b",
                                       "llama3-0.5b"};

struct hf_config : ::testing::Test {
  void SetUp() override {
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
    dir = test::make_temp_dir("hf-config");
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string dir;
};

TEST_F(hf_config, each_catalog_model_renders_the_same_arguments_from_its_config) {
  for (const auto& p : hf_pairs) {
    SCOPED_TRACE(p.catalog);
    const auto catalog = load_model(p.catalog);
    const auto imported = load_model(hf_path(p.repo));
    EXPECT_EQ(args_of_model(imported), args_of_model(catalog));
    // Field by field too, beyond what the arguments show; max_seq aside:
    // the catalog keeps the trained context where a config gives its
    // longest (Llama 3.1's 131072, Qwen2.5-7B's 131072).
    EXPECT_EQ(imported.layers, catalog.layers);
    EXPECT_EQ(imported.ffn, catalog.ffn);
    EXPECT_EQ(imported.moe_ffn, catalog.moe_ffn);
    EXPECT_EQ(imported.head_size(), catalog.head_size());
    EXPECT_EQ(imported.rotary_base, catalog.rotary_base);
    EXPECT_DOUBLE_EQ(imported.norm_epsilon, catalog.norm_epsilon);
    EXPECT_DOUBLE_EQ(imported.parameters(), catalog.parameters());
  }
  EXPECT_EQ(load_model(hf_path("meta-llama/Meta-Llama-3-8B")).name, "Meta-Llama-3-8B");
  EXPECT_EQ(load_model(hf_path("meta-llama/Meta-Llama-3-8B")).family, "llama");
  // _name_or_path, where the config has one.
  EXPECT_EQ(load_model(hf_path("meta-llama/Llama-2-7b-hf")).name, "Llama-2-7b-hf");
}

TEST_F(hf_config, the_list_covers_every_catalog_model) {
  std::vector<std::string> listed;
  for (const auto& p : hf_pairs)
    listed.emplace_back(p.catalog);
  listed.insert(listed.end(), std::begin(without_hf_form), std::end(without_hf_form));
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(listed, model_names());  // a new catalog model goes in one of the two lists
}

TEST_F(hf_config, the_other_architectures_read_as_their_configs_say) {
  const auto mixtral = model_from_hf_config(hf_path("mistralai/Mixtral-8x7B-v0.1"));
  EXPECT_EQ(mixtral.family, "mixtral");
  EXPECT_EQ(mixtral.experts, 8);
  EXPECT_EQ(mixtral.topk, 2);
  EXPECT_EQ(mixtral.moe_ffn, 14336);
  EXPECT_EQ(mixtral.kv_heads, 8);
  EXPECT_EQ(mixtral.rotary_base, 1000000);
  EXPECT_DOUBLE_EQ(mixtral.norm_epsilon, 1e-5);
  EXPECT_FALSE(mixtral.has_qkv_bias());

  const auto mistral = model_from_hf_config(hf_path("mistralai/Mistral-7B-v0.3"));
  EXPECT_EQ(mistral.vocab, 32768);
  EXPECT_FALSE(mistral.is_moe());
  EXPECT_FALSE(mistral.tied_embeddings);

  const auto qwen2_moe = model_from_hf_config(hf_path("Qwen/Qwen2-57B-A14B"));
  EXPECT_EQ(qwen2_moe.experts, 64);
  EXPECT_EQ(qwen2_moe.topk, 8);
  EXPECT_EQ(qwen2_moe.moe_ffn, 2560);
  EXPECT_EQ(qwen2_moe.shared_expert_ffn, 20480);
  EXPECT_TRUE(qwen2_moe.qkv_bias);
  EXPECT_FALSE(qwen2_moe.bias_linear);

  const auto qwen3_moe = model_from_hf_config(hf_path("Qwen/Qwen3-30B-A3B"));
  EXPECT_EQ(qwen3_moe.head_dim, 128);
  EXPECT_EQ(qwen3_moe.experts, 128);
  EXPECT_EQ(qwen3_moe.moe_ffn, 768);
  EXPECT_TRUE(qwen3_moe.qk_layernorm);
  EXPECT_FALSE(qwen3_moe.has_qkv_bias());
  const auto args = args_of_model(qwen3_moe);
  for (const char* flag : {"--qk-layernorm", "--kv-channels", "--num-experts"})
    EXPECT_NE(std::find(args.begin(), args.end(), flag), args.end()) << flag;
}

TEST_F(hf_config, what_megatron_cannot_build_is_refused_naming_the_file_and_field) {
  auto config = [&](const std::string& name, const std::string& text) {
    return test::write_file(dir, name, text);
  };
  const std::string llama =
    R"("hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
       "num_hidden_layers": 32, "vocab_size": 128256)";
  const auto gpt2 = config("gpt2.json", R"({"model_type": "gpt2", "n_embd": 768})");
  EXPECT_EQ(hf_error_of([&] { model_from_hf_config(gpt2); }),
            gpt2 + ": model_type 'gpt2' is not one paratune reads (it reads: llama, mistral, "
                   "mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe)");
  const auto half = config("half.json", R"({"model_type": "llama", "hidden_size": 4096.5,
    "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
    "vocab_size": 128256})");
  EXPECT_EQ(hf_error_of([&] { model_from_hf_config(half); }),
            half + ": field 'hidden_size': expected an integer, got 4096.5 (not a whole number)");
  const auto window = config("window.json", R"({"model_type": "mistral", )" + llama + "}");
  EXPECT_EQ(hf_error_of([&] { model_from_hf_config(window); }),
            window + ": field 'sliding_window': sliding-window attention (4096 tokens, the "
                     "default when the field is absent) is not modelled");
  const auto yarn = config("yarn.json", R"({"model_type": "qwen2", "rope_scaling":
    {"rope_type": "yarn", "factor": 4.0}, )" + llama + "}");
  EXPECT_EQ(hf_error_of([&] { model_from_hf_config(yarn); }),
            yarn + ": field 'rope_scaling': rope_type 'yarn' is not Llama 3.1's 'llama3' scheme, "
                   "the only one Megatron-LM's --use-rope-scaling applies");
  const auto bias = config("bias.json", R"({"model_type": "llama", "attention_bias": true, )"
                                          + llama + "}");
  EXPECT_NE(hf_error_of([&] { model_from_hf_config(bias); })
              .find(bias + ": field 'attention_bias': a bias on the attention projections alone"),
            std::string::npos);
  const auto missing = config("missing.json", R"({"model_type": "llama"})");
  EXPECT_EQ(hf_error_of([&] { model_from_hf_config(missing); }),
            missing + ": missing field 'num_hidden_layers'");
  const auto broken = config("broken.json", "{\"model_type\": ");
  EXPECT_EQ(hf_error_of([&] { model_from_hf_config(broken); }).rfind(broken + ": not JSON: ", 0), 0u);
  // Both biases: every linear layer has one, Megatron-LM's add_bias_linear.
  const auto both = config("both.json", R"({"model_type": "llama", "attention_bias": true,
    "mlp_bias": true, )" + llama + "}");
  EXPECT_TRUE(model_from_hf_config(both).bias_linear);
}

TEST_F(hf_config, a_job_reads_it_from_its_own_folder_and_submit_sends_its_fields) {
  fs::create_directories(dir + "/jobs/hf");
  fs::copy_file(hf_path("meta-llama/Meta-Llama-3-8B"), dir + "/jobs/hf/config.json");
  const std::string rest = "cluster: dgx-a100-80g\ninitial: {tp: 2, gbs: 512, seq: 8192}\n";
  const auto inline_job =
    test::write_file(dir + "/jobs", "inline.yaml", "model: {hf_config: hf/config.json}\n" + rest);
  const auto named_job = test::write_file(dir + "/jobs", "named.yaml",
                                          "model: hf/config.json\n" + rest);
  const auto renamed_job = test::write_file(
    dir + "/jobs", "renamed.yaml", "model: {hf_config: hf/config.json, name: my-llama}\n" + rest);
  // From another folder: the path means the job's.
  const auto cwd = fs::current_path();
  fs::current_path(dir);
  struct back_to { fs::path p; ~back_to() { fs::current_path(p); } } restore{cwd};
  const auto catalog = args_of_model(load_model("llama3-8b"));
  for (const auto& job : {inline_job, named_job, renamed_job}) {
    SCOPED_TRACE(job);
    const auto j = load_job(job);
    EXPECT_EQ(args_of_model(j.model), catalog);
    // What paratune submit sends: the fields, which the daemon reads
    // without the client's files.
    const auto sent = inline_job_files(job);
    EXPECT_EQ(sent.find("hf_config:"), std::string::npos) << sent;
    EXPECT_EQ(args_of_model(load_job_text(sent, "the submitted job").model), catalog) << sent;
  }
  EXPECT_EQ(load_job(inline_job).model.name, "hf");
  EXPECT_EQ(load_job(renamed_job).model.name, "my-llama");
  // The daemon itself reads no config a job names.
  EXPECT_EQ(hf_error_of([&] {
              load_job_text("model: {hf_config: /tmp/config.json}\n" + rest, "the submitted job");
            }),
            "the submitted job: model: field 'hf_config': the daemon reads no model file a job "
            "names: paratune submit sends the config's fields inline");
  // The config gives the fields: a size beside it is refused with its line.
  const auto both = test::write_file(dir + "/jobs", "both.yaml",
                                     "model:\n  hf_config: hf/config.json\n  layers: 4\n" + rest);
  EXPECT_EQ(hf_error_of([&] { load_job(both); }),
            both + ": model: line 3: field 'layers' beside 'hf_config': the Hugging Face config "
                   "gives the model's fields (only name, family and size may be given with it)");
  // An unknown model_type names the file and the type, inside the job's words.
  const auto gpt2 = test::write_file(dir + "/jobs/hf", "gpt2.json", R"({"model_type": "gpt2"})");
  const auto gpt2_job = test::write_file(dir + "/jobs", "gpt2.yaml",
                                         "model: {hf_config: hf/gpt2.json}\n" + rest);
  EXPECT_NE(hf_error_of([&] { load_job(gpt2_job); })
              .find(gpt2 + ": model_type 'gpt2' is not one paratune reads"),
            std::string::npos);
}

// A model file's integer field takes a whole number in float notation, and
// every field error names the file and its line.
TEST_F(hf_config, integer_fields_take_exact_float_notation_and_errors_name_the_line) {
  const std::string model = "name: m\nlayers: 4\nhidden: 512\nheads: 8\nvocab: 1000\n"
                            "swiglu: true\n";
  EXPECT_EQ(load_model(test::write_file(dir, "e6.yaml", model + "rotary_base: 1e6\n")).rotary_base,
            1000000);
  EXPECT_EQ(load_model(test::write_file(dir, "e3.yaml", model + "ffn: 2.048e3\n")).ffn, 2048);
  const auto half = test::write_file(dir, "half.yaml", model + "rotary_base: 1.5e0\n");
  EXPECT_EQ(hf_error_of([&] { load_model(half); }),
            half + ": line 7: field 'rotary_base': expected an integer in 1..1073741824, got "
                   "'1.5e0' (not a whole number)");
  const auto word = test::write_file(dir, "word.yaml", model + "kv_heads: two\n");
  EXPECT_EQ(hf_error_of([&] { load_model(word); }),
            word + ": line 7: field 'kv_heads': expected an integer in 1..16384, got 'two'");
  const auto eps = test::write_file(dir, "eps.yaml", model + "norm_epsilon: big\n");
  EXPECT_NE(hf_error_of([&] { load_model(eps); }).find(eps + ": line 7: field 'norm_epsilon': "),
            std::string::npos);
  const auto flag = test::write_file(dir, "flag.yaml", model + "qkv_bias: 2\n");
  EXPECT_EQ(hf_error_of([&] { load_model(flag); }),
            flag + ": line 7: field 'qkv_bias': expected true or false, got '2'");
  const auto position = test::write_file(dir, "pos.yaml", model + "position_embedding: alibi\n");
  EXPECT_EQ(hf_error_of([&] { load_model(position); }),
            position + ": line 7: field 'position_embedding': expected learned_absolute, rope or "
                       "none, got 'alibi'");
  // Inside a job: the job file's name and line.
  const auto job = test::write_file(
    dir, "job.yaml",
    "model:\n  name: m\n  layers: 4\n  hidden: 512\n  heads: 8\n  vocab: 1000\n"
    "  rotary_base: 1.5e0\ncluster: dgx-a100-80g\ninitial: {gbs: 8, seq: 512}\n");
  EXPECT_EQ(hf_error_of([&] { load_job(job); }),
            job + ": model: line 7: field 'rotary_base': expected an integer in 1..1073741824, "
                  "got '1.5e0' (not a whole number)");
  // A configuration's integer keys too, in a job's initial: and search:.
  const auto floats = test::write_file(
    dir, "floats.yaml",
    "model: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1e0\n"
    "initial: {tp: 2.0, gbs: 5.12e2, seq: 8.192e3}\nsearch: {tp: [2e0, 4.0], mbs: [1, 2]}\n");
  const auto j = load_job(floats);
  EXPECT_EQ(j.nodes, 1);
  EXPECT_EQ(j.initial.tp, 2);
  EXPECT_EQ(j.initial.gbs, 512);
  EXPECT_EQ(j.initial.seq, 8192);
  EXPECT_EQ(j.search.at("tp"), (std::vector<std::string>{"2", "4"}));
  const auto half_tp = test::write_file(dir, "half_tp.yaml",
                                        "model: llama3-8b\ncluster: dgx-a100-80g\n"
                                        "initial: {gbs: 512, seq: 8192}\nsearch: {tp: [1, 2.5]}\n");
  EXPECT_EQ(hf_error_of([&] { load_job(half_tp); }),
            half_tp + ": search: line 4: config key 'tp': expected an integer in 1..1048576, got "
                      "'2.5'");
  const auto nodes = test::write_file(dir, "nodes.yaml",
                                      "model: llama3-8b\ncluster: dgx-a100-80g\nnodes: 1e0\n"
                                      "precision: fp17\ninitial: {gbs: 8, seq: 512}\n");
  EXPECT_EQ(hf_error_of([&] { load_job(nodes); }),
            nodes + ": line 4: field 'precision': expected bf16, fp16 or fp8, got 'fp17'");
}

} // namespace
} // namespace paratune
