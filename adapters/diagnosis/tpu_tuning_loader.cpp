#include "adapters/diagnosis/tpu_tuning_loader.hpp"

#include <climits>
#include <set>

#include <yaml-cpp/yaml.h>

#include "adapters/config/env_fields.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/config/pool_loader.hpp"
#include "adapters/config/reasoner_loader.hpp"
#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"
#include "core/secret_env.hpp"
#include "core/trial_environment.hpp"

namespace paratune {

early_stop_policy tpu_tuning_settings::default_tpu_early_stop() {
  early_stop_policy p;
  p.warmup = 1;  // MaxText's step 0 holds the compilation
  p.stable_after = INT_MAX;
  return p;
}

tpu_tuning_settings load_tpu_tuning(const std::string& path) {
  return parse_tpu_tuning(read_text_file(path), path);
}

tpu_tuning_settings parse_tpu_tuning(const std::string& yaml_text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw input_error(path + ": " + e.what());
  }
  tpu_tuning_settings t;
  t.trials = yaml_fields::optional_int(root, "trials", path, {1, 1000}, t.trials);
  // Step 0 is compilation: two steps are the fewest that measure one.
  t.steps = yaml_fields::optional_int(root, "steps", path, {2, 100000}, t.steps);
  if (root["pools"]) {
    t.pools = read_pools(root["pools"], path);
    refuse_other_framework_args(t.pools, launch_field::maxtext_args, path);
    for (const auto& p : t.pools)
      if (p.kind == pool_kind::replay)
        throw input_error(path + ": pool '" + p.name
                          + "': a replay pool answers from measured GPU tables; a TPU "
                            "experiment runs on simulated, local or slurm pools");
  }
  if (const auto es = root["early_stop"]) {
    if (es.IsScalar() && (es.Scalar() == "false" || es.Scalar() == "true")) {
      if (es.Scalar() == "true")
        t.early_stop = tpu_tuning_settings::default_tpu_early_stop();
    } else {
      auto p = read_early_stop(es, path);
      if (!es["warmup"])
        p.warmup = tpu_tuning_settings::default_tpu_early_stop().warmup;
      p.stable_after = INT_MAX;  // the profile comes at the run's end
      t.early_stop = p;
    }
  }
  if (const auto r = root["reasoner"])
    t.reasoner = read_diagnosis_reasoner(r, path + ": reasoner");
  if (root["env"])
    t.env = read_env_field(root["env"], path);
  if (root["secret_env"])
    t.secret_env = read_secret_env_field(root["secret_env"], path);
  // The session's secrets, as a GPU job's: its own names, the model's key
  // and the Slurm pools' tokens. No `env:` may set one: a run would see it.
  std::set<std::string> secrets(t.secret_env.begin(), t.secret_env.end());
  if (!t.reasoner.api_key_env.empty())
    secrets.insert(t.reasoner.api_key_env);
  for (const auto& p : t.pools)
    if (!p.token_env.empty())
      secrets.insert(p.token_env);
  t.secret_env.assign(secrets.begin(), secrets.end());
  secrets.insert(always_secret_env().begin(), always_secret_env().end());
  if (auto e = env_map_error(t.env, "field 'env'", secrets))
    throw input_error(path + ": " + *e);
  for (const auto& p : t.pools)
    if (auto e = env_map_error(p.env, "pool '" + p.name + "': field 'env'", secrets))
      throw input_error(path + ": " + *e);
  if (const auto sim = root["simulation"]) {
    const auto where = path + ": simulation";
    if (!sim.IsMap())
      throw input_error(where + ": expected a mapping such as {time_scale: 0.01}");
    constexpr std::string_view keys[] = {"time_scale", "failure_rate"};
    yaml_fields::refuse_unknown_keys(sim, keys, path, "simulation");
    t.time_scale = yaml_fields::optional_real(sim, "time_scale", where, 0, 1, t.time_scale);
    t.failure_rate = yaml_fields::optional_real(sim, "failure_rate", where, 0, 1, t.failure_rate);
  }
  return t;
}

} // namespace paratune
