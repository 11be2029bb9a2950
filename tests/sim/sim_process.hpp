#pragma once

// Runs build/bin/paratune-sim as a real child process and reads its output
// with the Megatron-LM log parser, as the validator does (it reads stdout and
// stderr as one stream: a Python traceback goes to stderr).

#include <filesystem>
#include <string>
#include <vector>

#include "adapters/megatron/megatron_log_parser.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

struct sim_result {
  int status = -1;       ///< exit status
  std::string out, err;
  megatron_log log;      ///< stdout, then stderr, as the parser reads them
};

inline std::string sim_path() { return bin_dir() + "/paratune-sim"; }

/// Runs paratune-sim without pauses (--sim-time-scale 0) and parses its
/// output. Its environment has CUDA_DEVICE_MAX_CONNECTIONS=1, as a trial's
/// has whenever Megatron-LM asks for it, unless `env` says otherwise.
inline sim_result run_sim(const std::vector<std::string>& args,
                          env_changes env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}}) {
  std::vector<std::string> argv{sim_path(), "--sim-time-scale", "0"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto p = run_program(argv, env);
  sim_result r{p.status, p.out, p.err, {}};
  megatron_log_parser parser;
  parser.feed(r.out);
  parser.feed(r.err);
  parser.finish();
  r.log = parser.log();
  return r;
}

/// Llama3-8B's Megatron arguments (fp16, sequence 8192, global batch 512,
/// OptiCo Figure 5) on 8 GPUs, before the parallel layout.
inline std::vector<std::string> llama3_8b_args() {
  return {"--sim-world-size", "8", "--num-layers", "32", "--hidden-size", "4096",
          "--ffn-hidden-size", "14336", "--num-attention-heads", "32",
          "--group-query-attention", "--num-query-groups", "8", "--vocab-size", "128256",
          "--swiglu", "--seq-length", "8192", "--global-batch-size", "512", "--fp16",
          "--log-throughput"};
}

inline std::vector<std::string> with(std::vector<std::string> base,
                                     const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

} // namespace paratune::test
