#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "core/trial_outcome.hpp"

namespace paratune {

/// A user's own tuning history in the OptiCo table format (columns as in
/// data/perf/optico_fig5_*.csv): model, model_size, nnodes, nproc,
/// precision, seq_length, global_batch_size, micro_batch_size, tp, pp,
/// result, tflops, mfu, mem_ave_mib, mem_max_mib, mem_limit_mib,
/// failure_reason. Extra columns may name any other configuration key, by
/// canonical key (recompute, overlap_grad, ...) or OptiCo name (AC,
/// AC_LAYERS, OVERLAP_GRAD_REDUCE, ...), and gpu_util for the GPU busy share.
/// Lines starting with '#' are comments. The last row is the current run.
struct history_table {
  std::string model;        ///< model column of the first row ("llama3")
  std::string model_size;   ///< "8B"
  int nodes = 1;
  int devices_per_node = 8;
  precision prec = precision::bf16;
  std::vector<trial_outcome> rows;
};

/// Throws input_error naming the file, line and column of anything wrong.
history_table load_history_csv(const std::string& path);

/// The same from a stream (what load_history_csv reads the file with);
/// `source` names it in errors.
history_table read_history_csv(std::istream& in, const std::string& source);

/// Splits one CSV line (RFC 4180 quoting).
std::vector<std::string> split_csv_line(const std::string& line);

/// Classifies a failure reason as written in a table or by the failure
/// analyst ("OOM", "TP 4 and num_attention_heads 14 caused ValueError ...")
/// and names the parameters it blames.
failure_kind classify_failure_text(const std::string& text, std::vector<std::string>& blamed);

} // namespace paratune
