#pragma once

// The models and clusters of the published measurement tables, built in
// code: the model's validation, the table readers and the tests must agree
// on them whatever the catalog files say.

#include "core/cluster_spec.hpp"
#include "core/model_spec.hpp"

namespace paratune::reference {

/// A GPT-style model as in SC21, Korthikanti and vTrain: LayerNorm, GeLU,
/// multi-head attention, ffn = 4h, tied embeddings.
model_spec gpt(int layers, int hidden, int heads, int vocab = 51200);

/// Meta-Llama-3-8B (OptiCo Figure 5).
model_spec llama3_8b();

/// DGX A100 80GB (NVLink3 inside, HDR InfiniBand between nodes).
cluster_spec dgx_a100();

/// DGX H100 (NVLink4 inside, NDR InfiniBand between nodes).
cluster_spec dgx_h100();

} // namespace paratune::reference
