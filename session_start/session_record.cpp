#include "session_start/session_record.hpp"

#include <filesystem>

#include <unistd.h>

#include "adapters/config/catalog.hpp"
#include "adapters/config/executable_paths.hpp"
#include "adapters/config/job_loader.hpp"
#include "core/secret_env.hpp"
#include "messages/conversions.hpp"

namespace paratune {

namespace {

std::string sim_executable() {
  return sibling_executable("paratune-sim", "PARATUNE_SIM");
}

/// The relay program a relay pool's jobs run: the pool's relay_path, else
/// the paratune-relay beside this executable.
std::string relay_executable(const pool_spec& p) {
  return !p.relay_path.empty() ? p.relay_path
                               : sibling_executable("paratune-relay", "PARATUNE_RELAY");
}

} // namespace

std::string relay_ingress_for(const job_spec& job) {
  for (const auto& p : job.pools)
    if (p.relay)
      return p.relay_bind.empty() ? "tcp://127.0.0.1:*" : p.relay_bind;
  return {};
}

std::string reachable(const std::string& bound) {
  for (const std::string wildcard : {"tcp://0.0.0.0:", "tcp://*:"})
    if (bound.rfind(wildcard, 0) == 0) {
      char host[256] = {};
      if (gethostname(host, sizeof host - 1) == 0 && host[0])
        return "tcp://" + std::string(host) + ":" + bound.substr(wildcard.size());
    }
  return bound;
}

wire::session_opened session_record(const job_spec& job, const session_source& src) {
  wire::session_opened s;
  s.job_name = job.name;
  s.framework = job.framework;
  s.model = wire::to_wire(job.model);
  s.cluster = wire::to_wire(job.cluster);
  s.nodes = job.nodes;
  s.world_size = job.world_size();
  s.precision = to_string(job.prec);
  s.initial = wire::to_wire(job.initial);
  s.start = job.start;
  const auto reasoners = job.reasoner.value_or(src.default_reasoner);
  s.reasoner = wire::to_wire(reasoners.shared);
  for (const auto& [agent, settings] : reasoners.overrides)
    s.agent_reasoners.push_back({agent, wire::to_wire(settings)});
  // The templates as they are now: a session resumed later asks the same.
  const auto prompt = [](const char* name) {
    return read_text_file(configs_dir() + "/prompts/" + name);
  };
  if (reasoners.of(reasoning_agent::strategy_generation).mode != reasoner_mode::builtin) {
    s.generation_prompt = prompt("strategy_generation.md");
    s.ranking_prompt = prompt("strategy_ranking.md");
  }
  if (reasoners.of(reasoning_agent::failure_analysis).mode != reasoner_mode::builtin)
    s.failure_prompt = prompt("failure_analysis.md");
  if (reasoners.of(reasoning_agent::bottleneck_analysis).mode != reasoner_mode::builtin)
    s.health_prompt = prompt("bottleneck_analysis.md");
  s.search = job.search;
  s.trials = src.trials > 0 ? src.trials : job.trials;
  s.tokens = job.tokens;
  if (job.baseline)
    s.baseline = {true, wire::to_wire(job.baseline->config), job.baseline->tflops_per_gpu};
  s.train_iters = job.train_iters;
  s.retry_transient = job.retry_transient;
  s.stop = job.stop.mode;
  s.stop_min_gain = job.stop.min_gain;
  s.stop_confidence = job.stop.confidence;
  s.seed = job.seed;
  s.sim_time_scale = job.sim_time_scale;
  s.sim_path = sim_executable();
  s.sim_cluster = job.cluster_ref;
  s.job_yaml = src.job_text;
  for (const auto& p : job.pools) {
    auto& w = s.pools.emplace_back(wire::to_wire(p));
    w.relay_path = p.relay ? relay_executable(p) : "";
  }
  s.env = job.env;
  const auto secrets = secret_env_names(job, src.default_reasoner, src.secret_env);
  s.secret_env.assign(secrets.begin(), secrets.end());
  s.workdir = std::filesystem::absolute(src.pool_dir).string() + "/trials";
  if (job.early_stop) {
    const auto& p = *job.early_stop;
    s.early_stop = {true, p.warmup, p.stable_after, p.tolerance, p.rung, p.hang_s, p.wall_s};
  }
  return s;
}

} // namespace paratune
