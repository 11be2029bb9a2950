#include "validation/maxtext_table.hpp"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/input_error.hpp"
#include "core/tpu/mesh_model.hpp"
#include "core/tpu/tpu_accelerator.hpp"
#include "validation/csv_table.hpp"

namespace paratune {

namespace {

namespace fs = std::filesystem;

// MaxText's decoder: RMSNorm, untied embeddings, kv heads = heads.
model_spec maxtext_model(const std::string& label, int layers, int emb, int heads, int head_dim,
                         int mlp, bool gated, int vocab) {
  model_spec m;
  m.name = "maxtext-" + label;
  m.family = "maxtext";
  m.size = label;
  m.layers = layers;
  m.hidden = emb;
  m.heads = heads;
  m.kv_heads = heads;
  m.head_dim = head_dim;
  m.ffn = mlp;
  m.vocab = vocab;
  m.swiglu = gated;
  m.rmsnorm = true;
  m.tied_embeddings = false;
  // MaxText's decoder (the default block): rotary positions, no biases.
  m.position = position_embedding::rope;
  m.bias_linear = false;
  return m;
}

// The columns of a run's model and layout: the published table's own for
// v5e/v5p, the launch script's (second file) for v4.
struct layout_cells {
  model_spec model;
  int seq = 0;
  double per_device_batch = 0;
  std::string remat, fsdp, tensor;
};

// `gated`: the published table's rows are all SwiGLU (its column says
// so); the v4 launch configs state it per model.
layout_cells cells_of(const csv_row& r, const std::string& label, bool gated) {
  layout_cells c;
  c.model = maxtext_model(label, r.integer("num_layers"), r.integer("emb_dim"),
                          r.integer("num_query_heads(=kv_heads)"), r.integer("head_dim"),
                          gated ? r.integer("mlp_dim(swiglu)") : r.integer("mlp_dim"), gated,
                          r.integer("vocab"));
  c.seq = r.integer("seq_len");
  c.per_device_batch = r.number("per_device_batch");
  c.remat = r.text("remat_policy");
  c.fsdp = r.text("ici_fsdp");
  c.tensor = r.text("ici_tensor");
  return c;
}

// "auto(-1)" and "-1" are MaxText's "every chip the other axes leave".
std::string axis_size(const std::string& cell) {
  return cell.rfind("auto", 0) == 0 ? "-1" : cell;
}

maxtext_row make_row(const csv_row& r, const layout_cells& c) {
  maxtext_row row;
  const auto tpu = r.text("tpu");
  const int slices = r.integer("num_slices");
  const auto acc = parse_accelerator(r.text("slice_type"), slices);
  row.label = fmt::format("{} {} on {}{}", tpu, r.text("model_nominal"), r.text("slice_type"),
                          slices > 1 ? fmt::format(" x{}", slices) : "");
  row.cluster_ref = std::string("tpu-") + to_string(acc.generation);
  row.model = c.model;
  row.slice = acc.slice;
  if (acc.chips != r.integer("chips_per_slice"))
    throw input_error(r.where() + ": slice_type " + r.text("slice_type") + " has "
                      + std::to_string(acc.chips) + " chips, chips_per_slice says "
                      + r.text("chips_per_slice"));
  row.ici = parse_mesh("fsdp=" + axis_size(c.fsdp) + ",model=" + axis_size(c.tensor));
  fill_auto_axis(row.ici, acc.chips);
  row.dcn = parse_mesh("data=" + std::to_string(r.integer("dcn_data")));
  row.workload.seq_len = c.seq;
  row.workload.global_batch = static_cast<int>(c.per_device_batch * acc.chips * slices);
  if (!parse_remat_policy(c.remat, row.workload.remat))
    throw input_error(r.where() + ": remat_policy '" + c.remat + "' is not MaxText's");
  // MaxText's fsdp axis shards the optimizer state with the weights; the
  // context axis is not used in these runs.
  row.workload.seq_shards_weights = true;
  row.mfu = r.number("MFU_pct") / 100;
  return row;
}

} // namespace

std::vector<maxtext_row> read_maxtext_table(const std::string& data_dir) {
  const auto dir = fs::path(data_dir) / "perf";
  std::map<std::string, layout_cells> v4;
  for (const auto& r : read_csv_table((dir / "maxtext_v4_launch_configs.csv").string()))
    v4[r.text("model_nominal")] = cells_of(r, r.text("model_nominal"), r.text("mlp_gated") == "true");
  std::vector<maxtext_row> out;
  for (const auto& r : read_csv_table((dir / "maxtext_tpu_mfu_published.csv").string())) {
    const auto label = r.text("model_nominal");
    if (r.empty("emb_dim")) {
      const auto it = v4.find(label);
      if (it == v4.end())
        throw input_error(r.where() + ": no model for " + label
                          + " in maxtext_v4_launch_configs.csv");
      out.push_back(make_row(r, it->second));
    } else {
      out.push_back(make_row(r, cells_of(r, label, true)));
    }
  }
  return out;
}

table_validation validate_maxtext(const std::vector<maxtext_row>& rows,
                                  const std::vector<cluster_spec>& clusters) {
  table_validation t{"maxtext_tpu", "MaxText TPU MFU and fit verdicts (v4, v5e, v5p; 1-16 slices)",
                     {}, {}};
  int fits = 0;
  std::vector<compared_value> mfu;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto p = predict_mesh(r.model, clusters.at(i), r.slice, r.ici, r.dcn, r.workload);
    validation_row row{r.label, {{"MFU (%)", 100 * p.mfu, 100 * r.mfu}}, "", p.valid() && p.memory.fits};
    row.note = fmt::format("{} {}, remat {}: predicted {} ({:.1f} of {:.1f} GiB), limiting {}",
                           to_string(r.ici), to_string(r.dcn), to_string(r.workload.remat),
                           row.right ? "fits" : "does not fit", p.memory.total_gib,
                           p.memory.limit_gib, p.valid() ? p.limiting : p.problems.front());
    fits += row.right;
    mfu.push_back(row.values.front());
    t.rows.push_back(std::move(row));
  }
  t.stats.push_back({"MFU MAPE", mape(mfu), "%", true, true, 8});
  const double n = rows.size();
  t.stats.push_back({"runs predicted to fit", double(fits), fmt::format("/{:.0f}", n), true, false, n});
  return t;
}

} // namespace paratune
