#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/megatron_args.hpp"
#include "core/megatron_rules.hpp"
#include "core/perf/perf_model.hpp"

namespace paratune::sim {

/// What differs between the Megatron-LM (and PyTorch) versions paratune-sim
/// imitates, as their logs in data/megatron_logs show (iteration, memory and
/// error lines).
struct megatron_version {
  std::string name;              ///< "0.5", "0.8", "0.15" or "0.16"
  bool timestamp = true;         ///< " [%Y-%m-%d %H:%M:%S]" on iteration lines (0.6+)
  bool microseconds = false;     ///< ".%f" in every timestamp (0.16+)
  bool short_lr = false;         ///< "learning rate: {:.3E}" (<= 0.5)
  bool two_decimal_memory = false; ///< memory report values ":.2f" (0.16+), else Python floats
  bool hierarchical_cp = false;  ///< the world-size line names hierarchical CP sizes (HEAD)
  bool microbatches_logger = false; ///< "microbatches" (0.8+) rather than "micro-batches"
  int theory_form = 0;           ///< 6: 0.6 rules, 7: 0.7-0.14 rules, 15: 0.15+ rules
  bool transformer_block = false;///< "in transformer block" (0.12+) rather than "layers"
  bool old_assertions = false;   ///< 0.6 wording of the start-up assertions
  bool torch_oom_class = false;  ///< "torch.OutOfMemoryError" (PyTorch ~2.5+)
  bool glog_timestamps = false;  ///< NCCL/torchrun lines as "E1218 20:27:21.426415540" (~2.4+)
};

/// The traits of "0.5", "0.8", "0.15" or "0.16"; nullopt-like empty name
/// for anything else.
megatron_version version_traits(const std::string& name);

/// The error Megatron-LM of this version raises first for the command line,
/// or an empty rule when it starts. Newer versions raise the rule table's
/// first (check_megatron_launch); 0.5 and 0.8 say some in 0.6's words (and
/// have 0.6's stricter query-group rule).
rule_violation first_violation(const megatron_version& v, const megatron_launch& launch,
                               int world_size);

/// One logged iteration's values as training_log() averages them.
struct iteration_values {
  double elapsed_ms = 0;
  double tflops = 0;
  double loss = 0;
  int skipped = 0;       ///< skipped iterations in the interval
  int iterations = 1;    ///< iterations in the interval
};

/// Writes Megatron-LM's stdout for one run, in the chosen version's format.
class megatron_output {
public:
  megatron_output(const megatron_launch& launch, int world_size, megatron_version version,
                  bool log_throughput);

  void startup(double params_per_rank);
  /// One logged interval ending at iteration `it`.
  void iteration(int64_t it, const iteration_values& v);
  /// report_theoretical_memory() on rank 0.
  void theoretical_memory(int micro_batches);
  /// report_memory() on every rank with DP rank 0, one stage's numbers (MiB).
  void memory(const memory_breakdown& stage, int64_t it);
  void invalid_configuration(const rule_violation& v);
  void out_of_memory(int rank, int local_rank, double capacity_gib, double in_use_gib,
                     double tried_gib);
  void nccl_timeout(int rank, int64_t seq);
  void node_failure(int rank);
  void training_done(int64_t iterations);

private:
  std::string timestamp() const;
  std::string glog_stamp() const;
  void traceback(std::FILE* to, int rank);
  void launcher_epilogue(std::FILE* to, int local_rank);
  int global_rank(int tp_rank, int cp_rank, int stage) const;

  megatron_launch launch_;
  int world_size_;
  megatron_version version_;
  bool log_throughput_;
  int64_t consumed_ = 0;
  double loss_scale_ = 4294967296.0;
};

} // namespace paratune::sim
