// The reproducers of issue 9, each as the user met it: a value that
// overflowed, crashed or was silently accepted. Every one now exits 2 with
// one line naming the field and its allowed range (or, for output, stays
// valid and says what it did).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/run_paratune.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

struct refusal {
  std::vector<std::string> args;  ///< after "paratune"
  std::string expected;           ///< the whole error line, without "error: "
};

test::run_result paratune(const std::vector<std::string>& args) {
  std::vector<std::string> argv{test::paratune_exe()};
  argv.insert(argv.end(), args.begin(), args.end());
  return test::run_program(argv);
}

void expect_refused(const refusal& r) {
  const auto res = paratune(r.args);
  EXPECT_EQ(res.status, 2) << r.expected << "\n" << res.err;
  EXPECT_EQ(res.err, "error: " + r.expected + "\n");
  EXPECT_TRUE(res.out.empty()) << res.out;
}

std::vector<std::string> predict(const std::string& model, const std::string& config) {
  return {"predict", "--model", model, "--cluster", "dgx-a100-80g", "--gpus", "8", "--config",
          config};
}

const std::string llama = "layers=32,hidden=4096,heads=32,vocab=128256";

using hostile_input = test::paratune_cli;

// A product of two keys reached 2^32: tp * cp wrapped to 0 and the modulo
// by it raised SIGFPE (exit 136, nothing printed).
TEST_F(hostile_input, configuration_keys_that_overflowed_are_refused_by_range) {
  for (const auto& r : std::vector<refusal>{
         {predict("llama3-8b", "mbs=1073741824,tp=2"),
          "--config: config key 'mbs': 1073741824 is outside the allowed range 1..65536"},
         {predict("llama3-8b", "tp=4,cp=1073741824"),
          "--config: config key 'cp': 1073741824 is outside the allowed range 1..1048576"},
         {predict("llama3-8b", "cp=2147483647"),
          "--config: config key 'cp': 2147483647 is outside the allowed range 1..1048576"},
         {predict("llama3-8b", "mbs=2147483647"),
          "--config: config key 'mbs': 2147483647 is outside the allowed range 1..65536"},
         {predict("llama3-8b", "gbs=99999999999999999999"),
          "--config: config key 'gbs': '99999999999999999999' is outside the allowed range "
          "1..16777216"},
         {predict("llama3-8b", "tp=2.5"),
          "--config: config key 'tp': expected an integer in 1..1048576, got '2.5'"},
       })
    expect_refused(r);
}

// Model dimensions that were read as something else: ffn=-1 predicted 73%
// MFU, kv_heads=0, experts=-1 and topk=99999999 were ignored, swiglu=64 was
// true.
TEST_F(hostile_input, inline_model_dimensions_are_checked_alone_and_together) {
  const std::string pre = "--model '" + llama;
  for (const auto& r : std::vector<refusal>{
         {predict(llama + ",ffn=-1", "tp=2"),
          pre + ",ffn=-1': model dimension 'ffn': -1 is outside the allowed range 1..4194304"},
         {predict(llama + ",kv_heads=0", "tp=2"),
          pre + ",kv_heads=0': model dimension 'kv_heads': 0 is outside the allowed range "
                "1..16384"},
         {predict(llama + ",experts=-1", "tp=2"),
          pre + ",experts=-1': model dimension 'experts': -1 is outside the allowed range "
                "0..65536"},
         {predict(llama + ",topk=99999999", "tp=2"),
          pre + ",topk=99999999': model dimension 'topk': 99999999 is outside the allowed "
                "range 0..65536"},
         {predict(llama + ",swiglu=64", "tp=2"),
          pre + ",swiglu=64': model dimension 'swiglu': 64 is outside the allowed range 0..1"},
         {predict(llama + ",kv_heads=5", "tp=2"),
          pre + ",kv_heads=5': model dimensions: kv_heads 5: must divide heads 32"},
         {predict(llama + ",experts=8,topk=9", "tp=2"),
          pre + ",experts=8,topk=9': model dimensions: topk 9: must be between 1 and "
                "experts 8"},
         {predict(llama + ",topk=2", "tp=2"),
          pre + ",topk=2': model dimensions: topk 2: needs experts > 0 (a dense model routes "
                "no tokens)"},
       })
    expect_refused(r);
}

// A name longer than the file system allows threw a filesystem_error
// (exit 1); it is an unknown catalog name like any other.
TEST_F(hostile_input, a_300_character_model_name_is_an_unknown_model) {
  const auto res = paratune(predict(std::string(300, 'x'), "tp=1"));
  EXPECT_EQ(res.status, 2) << res.err;
  EXPECT_EQ(res.err.rfind("error: --model '" + std::string(77, 'x') + "...': unknown model (a "
                          "name of 300 characters; catalog names have at most 128; known: ",
                          0),
            0u)
      << res.err;
  const auto as_path = paratune(predict(std::string(300, 'x') + ".yaml", "tp=1"));
  EXPECT_EQ(as_path.status, 2) << as_path.err;
  EXPECT_NE(as_path.err.find(".yaml: no such file"), std::string::npos) << as_path.err;
}

// Long sequences put Megatron's TFLOP/s convention (attention counted
// whole) above the peak, and MFU, counted in that convention, above 1; what
// the kernels run (the causal half under flash attention) stays below it.
TEST_F(hostile_input, a_million_token_sequence_predicts_a_kernel_utilization_below_one) {
  auto args = predict("llama3-8b", "tp=1,gbs=64,seq=1048576");
  args.push_back("--json");
  const auto res = paratune(args);
  ASSERT_EQ(res.status, 0) << res.err;
  const auto j = nlohmann::json::parse(res.out);
  EXPECT_LE(j["kernel_utilization"].get<double>(), 1.0);
  EXPECT_NEAR(j["kernel_utilization"].get<double>(), 0.54, 0.02);
  EXPECT_GT(j["tflops_per_gpu"].get<double>(), 312); // the convention passes the A100's peak
  EXPECT_NEAR(j["mfu"].get<double>(), j["tflops_per_gpu"].get<double>() / 312, 1e-9);
  EXPECT_FALSE(j["fits"].get<bool>());
}

struct hostile_files : test::paratune_cli {
  void SetUp() override {
    test::paratune_cli::SetUp();
    dir = test::make_temp_dir("hostile");
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string file(const std::string& name, const std::string& text) {
    return test::write_file(dir, name, text);
  }
  std::string dir;
};

TEST_F(hostile_files, job_experiment_and_history_files_refuse_the_same_values) {
  const auto job = file("job.yaml", "model: llama3-8b\ncluster: dgx-a100-80g\n"
                                    "initial: {gbs: 64, seq: 4096, tp: 2, mbs: 1073741824}\n");
  expect_refused({{"tune", job, "--db", dir + "/db"},
                  job + ": initial: line 3: config key 'mbs': 1073741824 is outside the allowed range "
                        "1..65536"});
  EXPECT_FALSE(fs::exists(dir + "/db")); // nothing half-written

  const auto nodes = file("nodes.yaml", "model: llama3-8b\ncluster: dgx-a100-80g\nnodes: 262144\n"
                                        "initial: {gbs: 64, seq: 4096}\n");
  expect_refused({{"tune", nodes, "--db", dir + "/db"},
                  nodes + ": field 'nodes': nodes x 8 devices: 2097152 is outside the allowed "
                          "range 1..1048576"});

  // fuzz/job_yaml.cpp found these: yaml-cpp's BadSubscript escaped
  // load_job, and a cluster path too long for the file system threw
  // filesystem_error (exit 1).
  const auto scalar = file("scalar.yaml", "model: gpt3-7b\ncluster: dgx-a100-80g\n"
                                          "initial: {gbs: 4, seq: 2}\nsimulation: d\n");
  expect_refused({{"tune", scalar, "--db", dir + "/db"},
                  scalar + ": field 'simulation': expected a mapping such as {seed: 7, "
                           "train_iters: 12}"});
  const auto long_path = "./" + std::string(300, '0');
  const auto cluster = file("cluster.yaml", "model: gpt3-7b\ncluster: " + long_path
                                                + "\ninitial: {gbs: 4, seq: 2}\n");
  // The path means the file beside the job (issue 22), and is named so.
  expect_refused({{"tune", cluster, "--db", dir + "/db"},
                  cluster + ": " + fs::path(cluster).parent_path().string() + "/"
                    + std::string(300, '0') + ": no such file"});

  const auto exp = file("exp.yaml", "name: e\nmodel: llama3-8b\n"
                                    "hardware: {cluster: dgx-a100-80g, nodes: 1}\n"
                                    "megatron: {tp: 4, cp: 1073741824}\nbatch: 64\nseq: 4096\n");
  expect_refused({{"predict", "-e", exp},
                  exp + ": config key 'cp': 1073741824 is outside the allowed range 1..1048576"});

  const auto csv = file("history.csv",
                        "model,model_size,nnodes,nproc,precision,seq_length,global_batch_size,"
                        "micro_batch_size,tp,pp,result,tflops\n"
                        "llama3,8B,1,8,bf16,4096,64,1073741824,2,1,success,100\n");
  expect_refused({{"advise", "--history", csv},
                  csv + ": line 2: column 'micro_batch_size': config key 'mbs': 1073741824 is "
                        "outside the allowed range 1..65536"});
  const auto mfu = file("mfu.csv",
                        "model,model_size,nnodes,nproc,precision,seq_length,global_batch_size,"
                        "micro_batch_size,tp,pp,result,tflops,mfu\n"
                        "llama3,8B,1,8,bf16,4096,64,1,2,1,success,100,1.7\n");
  expect_refused({{"advise", "--history", mfu},
                  mfu + ": line 2: column 'mfu': 1.7 is outside the allowed range 0..1"});
}

// MaxText splits each sequence over the seq axis: 3 tokens cannot split 16 ways.
TEST_F(hostile_files, a_tpu_sequence_must_split_over_the_seq_mesh_axis) {
  const auto exp = file("seq.yaml",
                        "name: seq-3\n"
                        "model: {name: m, layers: 32, hidden: 8192, heads: 64, head_dim: 128, "
                        "ffn: 28672, vocab: 32000, swiglu: 1}\n"
                        "hardware: {slice: v5p-128}\nmesh: {seq: 16, fsdp: -1}\n"
                        "per_device_batch: 1\nseq: 3\n");
  expect_refused({{"predict", "-e", exp},
                  exp + ": field 'seq': 3 must be a multiple of the seq mesh axes (16 shards)"});
  const auto ok = file("seq32.yaml", "name: seq-32\n"
                                     "model: {name: m, layers: 32, hidden: 8192, heads: 64, "
                                     "head_dim: 128, ffn: 28672, vocab: 32000, swiglu: 1}\n"
                                     "hardware: {slice: v5p-128}\nmesh: {seq: 16, fsdp: -1}\n"
                                     "per_device_batch: 1\nseq: 32\n");
  EXPECT_EQ(paratune({"predict", "-e", ok}).status, 0);
}

// 2 KB of random bytes exited 0 with an empty result.
TEST_F(hostile_files, parse_log_says_when_no_megatron_line_is_found) {
  std::string noise;
  uint32_t x = 2463534242u; // xorshift: the same bytes on every run
  for (int i = 0; i < 2048; ++i) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    noise.push_back(char(x & 0xff));
  }
  const auto path = file("noise.bin", noise);
  const auto r = paratune({"parse-log", path});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(path + ": no Megatron-LM line found ("), std::string::npos) << r.err;
  const auto json = paratune({"parse-log", path, "--json"});
  EXPECT_EQ(json.status, 2);
  EXPECT_TRUE(json.out.empty());
}

// A byte that is not UTF-8 in anything quoted from input aborted --json
// with nlohmann's "invalid UTF-8 byte" (exit 1); it now prints U+FFFD.
TEST_F(hostile_files, diagnose_json_replaces_bytes_that_are_not_utf8) {
  const auto profile = dir + "/run\xff" "dir";
  fs::copy(test::source_dir() + "/tests/fixtures/asap/v6e-16-hbm", profile);
  const auto r = paratune({"diagnose", "-e", profile + "/experiment.yaml", "--xprof", profile,
                           "--json", "--db", dir + "/pool"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out); // throws on invalid UTF-8
  EXPECT_EQ(j["bottleneck"], "hbm_bandwidth");
  EXPECT_NE(j["sources"].dump().find("run\xef\xbf\xbd" "dir"), std::string::npos)
      << j["sources"].dump();
}

} // namespace
} // namespace paratune
