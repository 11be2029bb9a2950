#pragma once

#include <string>

#include "core/diagnosis/experiment_spec.hpp"

namespace paratune {

/// Reads an experiment file (what `paratune diagnose` is about):
///
///   name: asap-v5e-256-comm
///   model: llama3-8b             # catalog name, model YAML path, "layers=..,hidden=..",
///                                # or a map of dimensions {layers: 32, hidden: 4096, ...}
///   hardware:
///     cluster: tpu-v5e           # catalog name or cluster YAML path
///     slice: 16x16               # TPU: chips per slice; num_slices: 2 for DCN
///     nodes: 1                   # GPU: node count
///     gpus: 1                    # GPU, instead of nodes: part of one node
///   mesh: {data: 4, model: 4, seq: 16}      # TPU ICI mesh (or "data=4,model=4,seq=16")
///   dcn_mesh: {replica: 2}                  # TPU, several slices only
///   megatron: {tp: 8, pp: 1, mbs: 1, recompute: full}  # GPU
///   batch: 8                     # global batch, sequences
///   seq: 65536                   # sequence length
///   workload: {accumulation_steps: 1, remat: full, seq_shards_weights: true,
///              optimizer_over_data: false, cp_load_balanced: false}
///   precision: bf16
///   stack: {flash_attention: true, tp_comm_overlap: false,   # GPU: what the software
///           p2p_scatter_gather: false}                        # stack does (predict's --stack)
///
/// Throws input_error naming the file and the field that is wrong: a mesh
/// that does not span the slice, an unknown axis, a missing batch.
experiment_spec load_experiment(const std::string& path);

/// The same from YAML text; `where` names it in errors.
experiment_spec parse_experiment(const std::string& yaml_text, const std::string& where);

} // namespace paratune
