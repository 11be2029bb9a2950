#include "adapters/config/job_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "adapters/config/catalog.hpp"
#include "adapters/config/pool_loader.hpp"
#include "adapters/config/reasoner_loader.hpp"
#include "adapters/config/replay_job.hpp"
#include "adapters/config/env_fields.hpp"
#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"
#include "core/job_file_reference.hpp"
#include "core/megatron_rules.hpp"
#include "frameworks/framework.hpp"
#include "core/secret_env.hpp"
#include "core/value_range.hpp"

namespace paratune {

using yaml_fields::optional;
using yaml_fields::optional_int;
using yaml_fields::required;

namespace {

// Every key a job file may have at its top level, in the order a job file
// usually gives them: a key not listed is refused with the nearest
// of these (yaml_fields::refuse_unknown_keys), since a misspelled key
// (trails:, serach:) would otherwise leave its default in force unseen.
constexpr std::string_view job_top_keys[] = {
  "name", "framework", "model", "cluster", "nodes", "precision", "initial", "start", "search", "trials",
  "tokens", "baseline", "retry_transient_failures", "simulation", "pools", "early_stop",
  "reasoner", "env", "secret_env", "stop"};

constexpr std::string_view simulation_keys[] = {"seed", "train_iters", "time_scale"};

constexpr std::string_view session_stop_keys[] = {"min_gain", "confidence"};

constexpr std::string_view early_stop_keys[] = {"warmup", "stable_after", "tolerance",
                                                "rung", "hang_s", "wall_s"};

// The configuration keys (tp, pp, mbs ...) and, for `baseline:`, its own
// extra keys: what a mapping of a configuration may hold.
std::vector<std::string_view> config_key_names(std::initializer_list<const char*> extra = {}) {
  std::vector<std::string_view> names(config_keys().begin(), config_keys().end());
  names.insert(names.end(), extra.begin(), extra.end());
  return names;
}

std::string scalar_text(const YAML::Node& n, const std::string& where) {
  if (!n.IsScalar())
    throw input_error(where + ": expected a single value");
  return n.as<std::string>();
}

// An integer key's value in float notation (`gbs: 5.12e2`) as its digits;
// any other value as written.
std::string config_text(const std::string& key, const std::string& text) {
  const auto* k = find_config_key(key);
  return k && k->int_field ? yaml_fields::integer_text(text) : text;
}

// A configuration given by its canonical keys under `field` (initial,
// baseline); keys listed in `skip` are the field's own, not configuration keys.
training_config read_config(const YAML::Node& node, const std::string& where,
                            const std::string& field, std::initializer_list<const char*> skip = {}) {
  if (!node || !node.IsMap())
    throw input_error(where + ": missing field '" + field + "' (a configuration, "
                              "e.g. {tp: 1, pp: 1, mbs: 1, gbs: 512, seq: 4096})");
  yaml_fields::refuse_unknown_keys(node, config_key_names(skip), where, field);
  for (const char* key : {"gbs", "seq"})
    if (!node[key])
      throw input_error(where + ": " + field + ": missing field '" + std::string(key) + "'");
  training_config c;
  for (const auto& kv : node) {
    const auto key = kv.first.as<std::string>();
    if (std::find_if(skip.begin(), skip.end(), [&](const char* s) { return key == s; })
        != skip.end())
      continue;
    try {
      set_value(c, key, config_text(key, scalar_text(kv.second, where + ": " + field + ": " + key)));
    } catch (const input_error& e) {
      throw input_error(where + ": " + field + ": line " + std::to_string(kv.second.Mark().line + 1)
                        + ": " + e.what());
    }
  }
  return c;
}

training_config read_initial(const YAML::Node& node, const std::string& where) {
  if (!node || !node.IsMap())
    throw input_error(where + ": missing field 'initial' (the first configuration, "
                              "e.g. {tp: 1, pp: 1, mbs: 1, gbs: 512, seq: 4096})");
  return read_config(node, where, "initial");
}

// `baseline: {tp: 4, pp: 2, ..., tflops_per_gpu: 180}`: the configuration
// the team runs today, and optionally the throughput they measured for it,
// which no device can deliver above its peak.
job_baseline read_baseline(const YAML::Node& node, const std::string& where,
                           const cluster_spec& cluster, precision prec) {
  job_baseline b;
  b.config = read_config(node, where, "baseline", {"tflops_per_gpu"});
  b.tflops_per_gpu =
    yaml_fields::optional_real(node, "tflops_per_gpu", where + ": baseline", 1e-3, 1e6, 0);
  const double peak = cluster.device.peak_tflops(prec);
  if (peak > 0 && b.tflops_per_gpu > peak)
    throw input_error(fmt::format(
      "{}: baseline: field 'tflops_per_gpu': {:g} is above the {} peak of {:g} TFLOP/s per "
      "device in {}; a measured throughput cannot exceed it",
      where, b.tflops_per_gpu, cluster.device.name, peak, to_string(prec)));
  return b;
}

std::map<std::string, std::vector<std::string>>
read_search(const YAML::Node& node, const std::string& where) {
  std::map<std::string, std::vector<std::string>> out;
  if (!node.IsMap())
    throw input_error(where + ": search: expected a mapping of key -> list of values");
  yaml_fields::refuse_unknown_keys(node, config_key_names(), where, "search");
  for (const auto& kv : node) {
    const auto key = kv.first.as<std::string>();
    const auto field = where + ": search: " + key;
    if (!kv.second.IsSequence() || kv.second.size() == 0)
      throw input_error(field + ": expected a non-empty list of values");
    training_config probe;
    for (const auto& v : kv.second) {
      auto text = config_text(key, scalar_text(v, field));
      try {
        set_value(probe, key, text);
      } catch (const input_error& e) {
        throw input_error(where + ": search: line " + std::to_string(v.Mark().line + 1) + ": "
                          + e.what());
      }
      out[key].push_back(get_value(probe, key)); // normalized (1 -> true ...)
    }
  }
  return out;
}

/// True when at least one combination of the search space passes the rules.
bool any_valid(const job_spec& job) {
  std::vector<std::pair<std::string, std::vector<std::string>>> dims(job.search.begin(),
                                                                     job.search.end());
  training_config c = job.initial;
  std::function<bool(size_t)> walk = [&](size_t i) {
    if (i == dims.size())
      return check_megatron_rules(job.model, c, job.world_size()).empty();
    for (const auto& v : dims[i].second) {
      set_value(c, dims[i].first, v);
      if (walk(i + 1))
        return true;
    }
    return false;
  };
  return walk(0);
}

} // namespace

// `early_stop: {stable_after: 5, tolerance: 0.02, rung: true, hang_s: 300,
// wall_s: 3600, warmup: 2}`: every key optional, each in its range.
early_stop_policy read_early_stop(const YAML::Node& node, const std::string& path) {
  const auto where = path + ": early_stop";
  if (!node.IsMap())
    throw input_error(where + ": expected a mapping such as {stable_after: 5, tolerance: 0.02}");
  yaml_fields::refuse_unknown_keys(node, early_stop_keys, path, "early_stop");
  early_stop_policy p;
  p.warmup = optional_int(node, "warmup", where, {0, 100000}, p.warmup);
  p.stable_after = optional_int(node, "stable_after", where, {1, 100000}, p.stable_after);
  p.tolerance = yaml_fields::optional_real(node, "tolerance", where, 1e-4, 1, p.tolerance);
  p.rung = yaml_fields::optional_flag(node, "rung", where, p.rung);
  p.hang_s = yaml_fields::optional_real(node, "hang_s", where, 1, 1e6, p.hang_s);
  p.wall_s = yaml_fields::optional_real(node, "wall_s", where, 1, 1e7, p.wall_s);
  return p;
}

namespace {

// `stop: budget` (every trial of the budget) or `stop: {min_gain: 0.01,
// confidence: 0.9}` (end once no candidate left is likely to pay; each key
// optional, each in its range).
session_stop_policy read_session_stop(const YAML::Node& node, const std::string& path) {
  const auto where = path + ": stop";
  if (node.IsScalar()) {
    if (node.Scalar() == to_string(session_stop_mode::budget))
      return session_stop_policy::budget();
    throw input_error(where + ": expected budget or a mapping such as {min_gain: 0.01, "
                      "confidence: 0.9}, got '" + printable_excerpt(node.Scalar(), 80) + "'");
  }
  if (!node.IsMap())
    throw input_error(where + ": expected budget or a mapping such as {min_gain: 0.01, "
                      "confidence: 0.9}");
  yaml_fields::refuse_unknown_keys(node, session_stop_keys, path, "stop");
  session_stop_policy p;
  p.mode = session_stop_mode::converged;
  p.min_gain = yaml_fields::optional_real(node, "min_gain", where, 0, 1, p.min_gain);
  // Below 0.5 the session would stop while a gain is more likely than not.
  p.confidence = yaml_fields::optional_real(node, "confidence", where, 0.5, 0.9999, p.confidence);
  return p;
}

} // namespace

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw input_error(path + ": cannot read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

namespace {

// Where a job's text came from: a file, whose folder its relative paths
// mean, or a submission to the daemon, which has no folder of the client's
// and reads no model or cluster file a job names (paratune submit sends them
// inline).
struct job_origin {
  std::string folder;
  bool submitted = false;
};

/// `model:` or `cluster:` as a file to read (resolved in the job's folder),
/// a catalog name, or "" for an inline mapping.
std::string spec_reference(const YAML::Node& root, const std::string& key,
                           const std::string& path, const job_origin& origin) {
  const auto node = root[key];
  if (!node)
    throw input_error(path + ": missing field '" + key + "'");
  if (node.IsMap())
    return {};
  if (!node.IsScalar())
    throw input_error(path + ": field '" + key + "' must be a catalog name, a YAML file or a "
                      "mapping of the " + key + "'s fields, got '" + YAML::Dump(node) + "'");
  const auto ref = node.Scalar();
  if (!names_a_file(ref))
    return ref;
  // An absolute path is refused too: it would name a file on the daemon's
  // machine, which a client (perhaps on another machine) cannot have checked.
  if (origin.submitted)
    throw input_error(path + ": field '" + key + "': '" + ref + "' is a file path, and the "
                      "daemon reads no " + key + " file a job names: paratune submit sends the "
                      + key + " file's fields inline (a mapping under '" + key + ":')");
  return resolve_in_job_folder(ref, origin.folder);
}

// A pool's replay table (a path once it holds a '/', else a shipped table)
// and slurmrestd token file: resolved in the job's folder. A submitted job
// may name them by absolute path only, a file of the daemon's machine
// (paratune submit makes relative ones absolute; a token is never sent).
void resolve_pool_files(std::vector<pool_spec>& pools, const std::string& path,
                        const job_origin& origin) {
  for (size_t i = 0; i < pools.size(); ++i) {
    auto& p = pools[i];
    const auto at = path + ": pools[" + std::to_string(i) + "]: field '";
    auto resolve = [&](std::string& file, const char* key) {
      if (file.empty() || std::filesystem::path(file).is_absolute())
        return;
      if (origin.submitted)
        throw input_error(at + key + "': '" + file + "' is a relative path, which the daemon "
                          "cannot resolve: give an absolute path (paratune submit does so "
                          "from the job file's folder)");
      file = resolve_in_job_folder(file, origin.folder);
    };
    if (p.table.find('/') != std::string::npos)
      resolve(p.table, "table");
    resolve(p.token_file, "token_file");
  }
}

// The cluster as the simulator is told it (--sim-cluster): its catalog name,
// its file, or its inline mapping as one line of flow YAML.
std::string flow_text(const YAML::Node& mapping) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << mapping;
  return out.c_str();
}

// The job's `framework:`: one this paratune has registered, whose trainer
// takes the job's layouts, on pools it can run on. Without the key the job
// is Megatron-LM's, whose checks need no registry (a program that reads job
// files without running trials links no framework).
void check_framework(const YAML::Node& root, job_spec& job, const std::string& path) {
  if (!root["framework"]) {
    refuse_other_framework_args(job.pools, launch_field::megatron_args, path);
    return;
  }
  job.framework = optional<std::string>(root, "framework", path, "megatron-lm");
  const auto* f = framework_named(job.framework);
  if (!f) {
    std::vector<std::string> names;
    for (const auto* known : registered_frameworks())
      names.emplace_back(known->name());
    throw input_error(path + ": field 'framework': '" + job.framework
                      + "' is not a framework this paratune runs (it runs: " + join(names, ", ")
                      + ")");
  }
  try {
    trainer_request r{job.model, job.initial, job.prec, job.train_iters, job.world_size()};
    f->trainer_args(r);
  } catch (const input_error& e) {
    throw input_error(path + ": field 'framework': " + e.what());
  }
  refuse_other_framework_args(job.pools, f->args_field(), path);
  if (f->simulated())
    return;
  // paratune-sim trains Megatron-LM only: no pools means one simulated.
  if (job.pools.empty())
    throw input_error(path + ": field 'pools': " + std::string(f->title())
                      + " trials need local or slurm pools (paratune's simulator trains "
                        "Megatron-LM only)");
  for (const auto& p : job.pools)
    if (p.kind == pool_kind::simulated)
      throw input_error(path + ": pool '" + p.name + "': a simulated pool runs paratune-sim, "
                        "which trains Megatron-LM, not " + std::string(f->title()));
}

job_spec read_job(const YAML::Node& root, const std::string& path, const job_origin& origin) {
  yaml_fields::refuse_unknown_keys(root, job_top_keys, path);
  // An inline model's or cluster's keys are refused here, with the job
  // file's name and line; model_from_mapping() and cluster_from_mapping()
  // check them again for a file of their own.
  if (root["model"] && root["model"].IsMap())
    refuse_unknown_model_keys(root["model"], path, "model");
  if (root["cluster"] && root["cluster"].IsMap())
    refuse_unknown_cluster_keys(root["cluster"], path, "cluster");
  job_spec job;
  job.name = optional<std::string>(root, "name", path, "job");
  const auto model = spec_reference(root, "model", path, origin);
  const auto cluster = spec_reference(root, "cluster", path, origin);
  try {
    // An inline model's hf_config: means the file in the job's folder; the
    // daemon reads none (paratune submit sends the config's fields).
    if (model.empty() && origin.submitted && root["model"]["hf_config"])
      throw input_error("model: field 'hf_config': the daemon reads no model file a job names: "
                        "paratune submit sends the config's fields inline");
    job.model = model.empty() ? model_from_mapping(root["model"], "model", origin.folder)
                              : load_model(model);
    job.cluster =
      cluster.empty() ? cluster_from_mapping(root["cluster"], "cluster") : load_cluster(cluster);
    job.cluster_ref = cluster.empty() ? flow_text(root["cluster"]) : cluster;
  } catch (const input_error& e) {
    throw input_error(path + ": " + e.what());
  }
  job.nodes = optional_int(root, "nodes", path, {1, max_devices}, 1);
  check_range(path + ": field 'nodes': nodes x " + std::to_string(job.cluster.devices_per_node)
                + " devices",
              checked_product("nodes", {job.nodes, job.cluster.devices_per_node}), {1, max_devices});
  const auto prec = optional<std::string>(root, "precision", path, "bf16");
  if (!parse_precision(prec, job.prec))
    throw input_error(yaml_fields::field_at(root["precision"], "precision", path)
                      + ": expected bf16, fp16 or fp8, got '" + prec + "'");
  job.initial = read_initial(root["initial"], path);
  const auto start = optional<std::string>(root, "start", path, "initial");
  if (!parse_start_policy(start, job.start))
    throw input_error(yaml_fields::field_at(root["start"], "start", path)
                      + ": expected initial (run the initial configuration "
                      "first) or predicted_best (run the model's best candidate first), got '"
                      + start + "'");
  if (root["reasoner"])
    job.reasoner = read_reasoners(root["reasoner"], path);
  job.trials = optional_int(root, "trials", path, {1, 100000}, 20);
  job.tokens = yaml_fields::optional_real(root, "tokens", path, 1, 1e18, 0);
  if (root["baseline"])
    job.baseline = read_baseline(root["baseline"], path, job.cluster, job.prec);
  job.retry_transient = yaml_fields::optional_flag(root, "retry_transient_failures", path, false);
  if (auto sim = root["simulation"]) {
    if (!sim.IsMap())
      throw input_error(path + ": field 'simulation': expected a mapping such as "
                               "{seed: 7, train_iters: 12}");
    yaml_fields::refuse_unknown_keys(sim, simulation_keys, path, "simulation");
    job.seed = optional<uint64_t>(sim, "seed", path + ": simulation", 1);
    // At least 4: the warm-up iterations are not scored.
    job.train_iters = optional_int(sim, "train_iters", path + ": simulation", {4, 1000000}, 12);
    job.sim_time_scale = yaml_fields::optional_real(sim, "time_scale", path + ": simulation", 0, 1,
                                       job.sim_time_scale);
  }
  if (root["pools"]) {
    job.pools = read_pools(root["pools"], path);
    resolve_pool_files(job.pools, path, origin);
  }
  check_framework(root, job, path);
  if (root["early_stop"])
    job.early_stop = read_early_stop(root["early_stop"], path);
  if (root["stop"])
    job.stop = read_session_stop(root["stop"], path);
  if (root["env"])
    job.env = read_env_field(root["env"], path);
  if (root["secret_env"])
    job.secret_env = read_secret_env_field(root["secret_env"], path);
  // The job's own secrets; a daemon checks again with its config's.
  if (auto e = job_env_error(job, secret_env_names(job, {}, {})))
    throw input_error(path + ": " + *e);
  job.search = root["search"]
                 ? read_search(root["search"], path)
                 : default_search_space(job.model, job.cluster, job.world_size(), job.initial);
  read_replay_pools(job, bool(root["search"]), path);
  if (!any_valid(job))
    throw input_error(path + ": search: no configuration in the search space passes "
                             "Megatron's rules for " + job.model.name + " on "
                      + std::to_string(job.world_size()) + " devices");
  return job;
}

} // namespace

namespace {

job_spec read_job_node(const YAML::Node& root, const std::string& label,
                       const job_origin& origin) {
  try {
    return read_job(root, label, origin);
  } catch (const YAML::Exception& e) {
    // A node of the wrong shape where a mapping was expected (yaml-cpp's
    // BadSubscript and the like): bad input, named by the file.
    throw input_error(label + ": " + e.msg);
  }
}

} // namespace

std::string job_folder(const std::string& path) {
  return std::filesystem::absolute(path).parent_path().string();
}

job_spec load_job(const std::string& path) {
  return read_job_node(yaml_fields::load_file(path), path, {job_folder(path), false});
}

namespace {

bool holds_tpu_experiment(const YAML::Node& root) {
  return root.IsMap() && root["mesh"] && root["hardware"];
}

YAML::Node submitted_job_root(const std::string& text, const std::string& label) {
  if (text.size() > max_job_text_bytes)
    throw input_error(label + ": the job file is " + std::to_string(text.size())
                      + " bytes, more than the " + std::to_string(max_job_text_bytes)
                      + " a job may have");
  return yaml_fields::load_text(text, label);
}

} // namespace

job_spec load_job_text(const std::string& text, const std::string& label) {
  return read_job_node(submitted_job_root(text, label), label, {{}, true});
}

job_document read_job_document(const std::string& path) {
  const auto root = yaml_fields::load_file(path);
  if (holds_tpu_experiment(root))
    return {job_kind::tpu_experiment, {}};
  return {job_kind::gpu_tuning, read_job_node(root, path, {job_folder(path), false})};
}

job_document read_job_document_text(const std::string& text, const std::string& label) {
  const auto root = submitted_job_root(text, label);
  if (holds_tpu_experiment(root))
    return {job_kind::tpu_experiment, {}};
  return {job_kind::gpu_tuning, read_job_node(root, label, {{}, true})};
}

bool is_tpu_experiment_file(const std::string& path) {
  try {
    return holds_tpu_experiment(YAML::LoadFile(path));
  } catch (const YAML::Exception&) {
    return false;
  }
}

} // namespace paratune
