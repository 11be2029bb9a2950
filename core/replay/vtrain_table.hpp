#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/replay/measured_landscape.hpp"

namespace paratune {

/// The GPT model of a vTrain measurement: LayerNorm, GeLU MLP of 4h,
/// multi-head attention, tied embeddings and GPT-2's vocabulary padded to
/// 51200 (Megatron-DeepSpeed's GPT as vTrain ran it). Named
/// "vtrain-h<hidden>-l<layers>-a<heads>-s<seq>".
model_spec vtrain_model(int hidden, int heads, int layers, int seq);

/// Whether a header line is vTrain's ground-truth header (it names the
/// columns "# GPUs" and "iteration time (ms)").
bool is_vtrain_header(const std::vector<std::string>& header);

/// Reads a vTrain ground-truth table (VIA-Research/vTrain
/// data/ground_truth_{single,multi}.csv: GPUs, global batch, micro batch,
/// hidden size, attention heads, layers, sequence length, tensor, data and
/// pipeline parallelism, iteration time in ms; multi adds the parameter
/// count first) into landscapes, one per model (hidden, heads, layers,
/// seq), GPU count and global batch, in the order they first appear.
///
/// Every configuration is what vTrain ran with Megatron-DeepSpeed: tp, pp,
/// mbs, gbs, seq, full (uniform) recomputation, every other key at its
/// default. TFLOP/s per GPU is derived (measured_tflops_per_gpu). A
/// configuration measured twice keeps the mean of its times. A row that is
/// not whole numbers in range, or whose tp x dp x pp is not its GPU count,
/// is refused with input_error "SOURCE: line N: ...".
std::vector<measured_landscape> parse_vtrain_table(std::string_view text,
                                                   const std::string& source);

/// Adds the landscapes of `more` to `into`, merging those with the same
/// name (the two vTrain files share none, but a team's copy may).
void merge_landscapes(std::vector<measured_landscape>& into,
                      std::vector<measured_landscape> more);

} // namespace paratune
