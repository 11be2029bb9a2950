#include "adapters/diagnosis/experiment_loader.hpp"

#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "adapters/config/catalog.hpp"
#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"
#include "core/value_range.hpp"
#include "core/tpu/tpu_accelerator.hpp"

namespace paratune {

using yaml_fields::optional;
using yaml_fields::optional_int;
using yaml_fields::required;
using yaml_fields::required_int;
using yaml_fields::required_real;

namespace {

// The keys an experiment file may hold, per mapping: a misspelled one is
// refused with the nearest known key, never read as its default.
constexpr std::string_view experiment_keys[] = {"name", "model", "hardware", "mesh", "dcn_mesh",
                                                "megatron", "batch", "per_device_batch", "seq",
                                                "workload", "precision", "stack",
                                                // the TPU session's own (tpu_tuning_loader.hpp)
                                                "trials", "steps", "pools", "early_stop",
                                                "simulation", "reasoner", "env", "secret_env"};
constexpr std::string_view hardware_keys[] = {"cluster", "slice", "num_slices", "nodes", "gpus"};
constexpr std::string_view stack_keys[] = {"flash_attention", "tp_comm_overlap",
                                           "p2p_scatter_gather"};
constexpr std::string_view workload_keys[] = {"accumulation_steps", "remat", "seq_shards_weights",
                                              "optimizer_over_data", "cp_load_balanced"};

// The global batch and sequence length take the ranges of the gbs and seq
// configuration keys, on TPU as on GPU.
const value_range batch_range = find_config_key("gbs")->range;
const value_range seq_range = find_config_key("seq")->range;

// A model or cluster named by a relative path is found beside the
// experiment file, as a user writing both would expect.
std::string beside(const std::string& ref, const std::string& where) {
  namespace fs = std::filesystem;
  const bool path_like = ref.find('/') != std::string::npos
                         || (ref.size() > 5 && ref.compare(ref.size() - 5, 5, ".yaml") == 0);
  if (!path_like || fs::path(ref).is_absolute())
    return ref;
  const auto candidate = fs::path(where).parent_path() / ref;
  std::error_code ec;
  return fs::exists(candidate, ec) ? candidate.string() : ref;
}

std::string flow_text(const YAML::Node& n) {
  if (n.IsScalar())
    return n.as<std::string>();
  std::string out;
  for (const auto& kv : n)
    out += (out.empty() ? "" : ",") + kv.first.as<std::string>() + "="
           + kv.second.as<std::string>();
  return out;
}

model_spec read_model(const YAML::Node& node, const std::string& where) {
  if (!node)
    throw input_error(where + ": missing field 'model'");
  if (node.IsMap()) {
    std::string dims;
    for (const auto& kv : node) {
      const auto key = kv.first.as<std::string>();
      if (key != "name")
        dims += (dims.empty() ? "" : ",") + key + "=" + kv.second.as<std::string>();
    }
    auto m = parse_inline_model(dims);
    m.name = node["name"] ? node["name"].as<std::string>() : "inline";
    return m;
  }
  const auto text = node.as<std::string>();
  if (text.find('=') != std::string::npos)
    return parse_inline_model(text);
  return load_model(beside(text, where));
}

// The global batch: `batch` sequences, or MaxText's `per_device_batch`
// sequences on every chip.
int read_global_batch(const YAML::Node& root, const std::string& where, int chips) {
  if (root["batch"] && root["per_device_batch"])
    throw input_error(where + ": give batch or per_device_batch, not both");
  if (!root["per_device_batch"])
    return required_int(root, "batch", where, batch_range);
  const auto per_device = required_real(root, "per_device_batch", where, 1.0 / 1024, 65536);
  const double global = per_device * chips;
  if (global > double(batch_range.max))
    throw input_error(where + ": per_device_batch times " + std::to_string(chips)
                      + " chips is outside the allowed global batch " + batch_range.text());
  if (global < 1 || global != static_cast<double>(static_cast<long long>(global)))
    throw input_error(where + ": per_device_batch " + root["per_device_batch"].as<std::string>()
                      + " times " + std::to_string(chips)
                      + " chips must be a whole number of sequences");
  return static_cast<int>(global);
}

void read_workload(const YAML::Node& root, const std::string& where, experiment_spec& e) {
  auto& w = e.workload;
  w.global_batch = read_global_batch(root, where, e.slice.chips());
  w.seq_len = required_int(root, "seq", where, seq_range);
  const auto wl = root["workload"];
  if (!wl)
    return;
  const auto at = where + ": workload";
  if (!wl.IsMap())
    throw input_error(at + ": expected a mapping such as {accumulation_steps: 1, remat: full}");
  yaml_fields::refuse_unknown_keys(wl, workload_keys, where, "workload");
  w.accumulation_steps = optional_int(wl, "accumulation_steps", at, {1, 65536}, 1);
  const auto remat = optional<std::string>(wl, "remat", at, "full");
  if (!parse_remat_policy(remat, w.remat))
    throw input_error(at + ": remat '" + remat + "' is not one of MaxText's policies ("
                      + remat_policy_names() + ")");
  w.seq_shards_weights = optional<bool>(wl, "seq_shards_weights", at, true);
  w.optimizer_over_data = optional<bool>(wl, "optimizer_over_data", at, false);
  w.cp_load_balanced = optional<bool>(wl, "cp_load_balanced", at, false);
}

// Every chip of the seq axes holds a slice of each sequence: a sequence
// shorter than the axes, or one that does not split evenly, cannot run.
void check_seq_axes(const experiment_spec& e, const std::string& where) {
  const int64_t shards = int64_t(e.mesh.at(mesh_axis::seq)) * e.dcn_mesh.at(mesh_axis::seq);
  if (e.workload.seq_len % shards != 0)
    throw input_error(where + ": field 'seq': " + std::to_string(e.workload.seq_len)
                      + " must be a multiple of the seq mesh axes (" + std::to_string(shards)
                      + " shards)");
}

tpu_mesh read_mesh(const YAML::Node& node, int chips, const std::string& what) {
  auto m = parse_mesh(flow_text(node));
  try {
    fill_auto_axis(m, chips);
  } catch (const input_error& e) {
    throw input_error(what + ": " + e.what());
  }
  return m;
}

void read_tpu(const YAML::Node& root, const tpu_slice& slice, const std::string& where,
              experiment_spec& e) {
  e.platform = device_platform::tpu;
  e.slice = slice;
  if (!root["mesh"])
    throw input_error(where + ": missing field 'mesh' (the ICI mesh, e.g. {data: 8, model: 4})");
  e.mesh = read_mesh(root["mesh"], e.slice.chips_per_slice(), "mesh");
  e.dcn_mesh = root["dcn_mesh"] ? read_mesh(root["dcn_mesh"], e.slice.num_slices, "dcn_mesh")
                                : tpu_mesh{};
  if (e.mesh.chips() != e.slice.chips_per_slice())
    throw input_error(where + ": mesh " + to_string(e.mesh) + " spans "
                      + std::to_string(e.mesh.chips()) + " chips, slice " + to_string(e.slice)
                      + " has " + std::to_string(e.slice.chips_per_slice()));
  if (e.dcn_mesh.chips() != e.slice.num_slices)
    throw input_error(where + ": dcn_mesh spans " + std::to_string(e.dcn_mesh.chips())
                      + " slices, hardware has num_slices " + std::to_string(e.slice.num_slices));
  read_workload(root, where, e);
  check_seq_axes(e, where);
}

// The hardware of a TPU job: `slice` is a topology ("4x4x8") or a Cloud
// TPU accelerator type ("v5p-256"); an accelerator type names the cluster
// file itself when `cluster` is left out, and must agree with it otherwise.
struct tpu_hardware {
  std::string cluster_ref;
  std::optional<tpu_slice> slice;
};

tpu_hardware read_tpu_hardware(const YAML::Node& hw, const std::string& where) {
  const auto at = where + ": hardware";
  tpu_hardware out;
  out.cluster_ref = optional<std::string>(hw, "cluster", at, "");
  if (!hw["slice"])
    return out;
  const int slices = optional_int(hw, "num_slices", at, {1, 4096}, 1);
  const auto text = required<std::string>(hw, "slice", at);
  const bool accelerator = !text.empty() && (text[0] == 'v' || text[0] == 'V');
  out.slice = accelerator ? parse_accelerator(text, slices).slice : parse_slice(text, slices);
  check_range(at + ": field 'num_slices': the chips of all slices",
              checked_product("num_slices", {out.slice->chips_per_slice(), slices}), {1, max_devices});
  if (!accelerator)
    return out;
  const auto acc = parse_accelerator(text, slices);
  const std::string implied = std::string("tpu-") + to_string(acc.generation);
  if (out.cluster_ref.empty())
    out.cluster_ref = implied;
  out.slice = acc.slice;
  return out;
}

void check_generation(const experiment_spec& e, const YAML::Node& hw, const std::string& where) {
  const auto text = optional<std::string>(hw, "slice", where, "");
  if (!looks_like_accelerator(text))
    return;
  const auto acc = parse_accelerator(text);
  const auto gen = generation_of_device(e.cluster.device.name);
  if (gen != acc.generation)
    throw input_error(where + ": hardware: slice " + text + " is a TPU "
                      + to_string(acc.generation) + " slice, cluster " + e.cluster_ref + " is "
                      + e.cluster.device.name);
}

void read_gpu(const YAML::Node& root, const YAML::Node& hw, const std::string& where,
              experiment_spec& e) {
  e.platform = device_platform::gpu;
  e.nodes = optional_int(hw, "nodes", where + ": hardware", {1, max_devices}, 1);
  // A job on part of one node (a single-GPU run, say) names its GPUs instead.
  if (hw["gpus"]) {
    if (hw["nodes"])
      throw input_error(where + ": hardware: give 'nodes' or 'gpus', not both");
    e.gpus = optional_int(hw, "gpus", where + ": hardware", {1, e.cluster.devices_per_node}, 1);
  }
  check_range(where + ": hardware: field 'nodes': nodes x " + std::to_string(e.cluster.devices_per_node)
                + " devices",
              checked_product("nodes", {e.nodes, e.cluster.devices_per_node}), {1, max_devices});
  const auto node = root["megatron"];
  if (!node || !node.IsMap())
    throw input_error(where + ": missing field 'megatron' (e.g. {tp: 8, pp: 1, mbs: 1})");
  training_config c;
  for (const auto& kv : node)
    set_value(c, kv.first.as<std::string>(), kv.second.as<std::string>());
  if (root["batch"])
    c.gbs = required_int(root, "batch", where, batch_range);
  if (root["seq"])
    c.seq = required_int(root, "seq", where, seq_range);
  e.megatron = c;
  // What the software stack does that the layout does not say (predict's
  // --stack): a run without flash attention keeps and moves the scores.
  if (const auto stack = root["stack"]) {
    if (!stack.IsMap())
      throw input_error(where + ": stack: expected a mapping ({flash_attention: false})");
    yaml_fields::refuse_unknown_keys(stack, stack_keys, where, "stack");
    const auto at = where + ": stack";
    e.stack.flash_attention = optional<bool>(stack, "flash_attention", at, true);
    e.stack.tp_comm_overlap = optional<bool>(stack, "tp_comm_overlap", at, false);
    e.stack.p2p_scatter_gather = optional<bool>(stack, "p2p_scatter_gather", at, false);
  }
}

} // namespace

experiment_spec parse_experiment(const std::string& yaml_text, const std::string& where) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& ex) {
    throw input_error(where + ": not valid YAML (line " + std::to_string(ex.mark.line + 1)
                      + "): " + ex.msg);
  }
  if (!root.IsMap())
    throw input_error(where + ": expected a mapping of fields");
  yaml_fields::refuse_duplicate_keys(root, where);
  yaml_fields::refuse_unknown_keys(root, experiment_keys, where, "");
  try {
    experiment_spec e;
    e.name = optional<std::string>(root, "name", where, "experiment");
    e.model = read_model(root["model"], where);
    const auto hw = root["hardware"];
    if (!hw || !hw.IsMap())
      throw input_error(where + ": missing field 'hardware' ({cluster: ..., slice: ...})");
    yaml_fields::refuse_unknown_keys(hw, hardware_keys, where, "hardware");
    const auto tpu_hw = read_tpu_hardware(hw, where);
    e.cluster_ref = tpu_hw.cluster_ref.empty()
                        ? required<std::string>(hw, "cluster", where + ": hardware")
                        : tpu_hw.cluster_ref;
    e.cluster = load_cluster(beside(e.cluster_ref, where));
    check_generation(e, hw, where);
    const auto prec = optional<std::string>(root, "precision", where, "bf16");
    if (!parse_precision(prec, e.prec))
      throw input_error(where + ": precision '" + prec + "' is not bf16, fp16 or fp8");
    e.workload.prec = e.prec;
    if (e.cluster.device.tpu) {
      if (!tpu_hw.slice)
        throw input_error(where + ": hardware: missing field 'slice' (a topology such as 8x8x8 "
                          "or an accelerator type such as v5p-1024)");
      read_tpu(root, *tpu_hw.slice, where, e);
    }
    else
      read_gpu(root, hw, where, e);
    return e;
  } catch (const YAML::Exception& ex) {
    throw input_error(where + ": " + ex.msg);
  } catch (const input_error& ex) {
    const std::string msg = ex.what();
    throw input_error(msg.rfind(where, 0) == 0 ? msg : where + ": " + msg);
  }
}

experiment_spec load_experiment(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw input_error(path + ": cannot open the experiment file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_experiment(ss.str(), path);
}

} // namespace paratune
