#pragma once

#include <cstdint>
#include <string>

#include "core/megatron_args.hpp"
#include "core/megatron_rules.hpp"

namespace paratune::sim {

/// Writes Megatron-LM's stdout for one run, in the chosen version's format
/// (shared/notes/input_formats.md section 1).
class megatron_output {
public:
  megatron_output(const megatron_launch& launch, int world_size, std::string version);

  void startup(double params_on_first_rank);
  void iteration(int64_t it, double elapsed_ms, double tflops, double loss, bool skipped);
  void memory(int rank, int64_t it, double allocated, double max_allocated, double reserved,
              double max_reserved);
  void invalid_configuration(const rule_violation& v);
  void out_of_memory(int rank, int local_rank, double capacity_gib, double in_use_gib,
                     double tried_gib);
  void nccl_timeout(int rank, int64_t seq);
  void node_failure(int rank);
  void training_done(int64_t iterations);

private:
  std::string timestamp() const;
  void traceback(int rank);
  void launcher_epilogue(int local_rank);

  megatron_launch launch_;
  int world_size_;
  std::string version_;
  int64_t consumed_ = 0;
  double loss_scale_ = 4294967296.0;
};

} // namespace paratune::sim
