#include "validation/reference_specs.hpp"

namespace paratune::reference {

model_spec gpt(int layers, int hidden, int heads, int vocab) {
  model_spec m;
  m.name = "gpt";
  m.family = "gpt3";
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn = 4 * hidden;
  m.vocab = vocab;
  m.swiglu = false;
  m.rmsnorm = false;
  m.tied_embeddings = true;
  return m;
}

model_spec llama3_8b() {
  model_spec m;
  m.name = "llama3-8b";
  m.family = "llama3";
  m.size = "8B";
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.ffn = 14336;
  m.vocab = 128256;
  m.swiglu = true;
  m.rmsnorm = true;
  m.tied_embeddings = false;
  // configs/models/llama3-8b.yaml's architecture.
  m.position = position_embedding::rope;
  m.rotary_base = 500000;
  m.bias_linear = false;
  return m;
}

cluster_spec dgx_a100() {
  cluster_spec c;
  c.name = "dgx-a100-80g";
  c.device = {"A100-SXM4-80GB", 312, 0, 80, 2039, false};
  c.devices_per_node = 8;
  c.scale_up = {"NVLink3", 300, 10};
  c.scale_out = {"IB-HDR", 25, 20};
  return c;
}

cluster_spec dgx_h100() {
  cluster_spec c;
  c.name = "dgx-h100";
  c.device = {"H100-SXM5-80GB", 989, 1979, 80, 3350, false};
  c.devices_per_node = 8;
  c.scale_up = {"NVLink4", 450, 8};
  c.scale_out = {"IB-NDR", 50, 18};
  return c;
}

} // namespace paratune::reference
