#include "core/pool_spec.hpp"

namespace paratune {

const char* to_string(pool_kind k) {
  switch (k) {
    case pool_kind::simulated: return "simulated";
    case pool_kind::local: return "local";
    case pool_kind::slurm: return "slurm";
    case pool_kind::replay: return "replay";
  }
  return "simulated";
}

bool parse_pool_kind(const std::string& text, pool_kind& out) {
  for (auto k : {pool_kind::simulated, pool_kind::local, pool_kind::slurm, pool_kind::replay})
    if (text == to_string(k)) {
      out = k;
      return true;
    }
  return false;
}

const char* to_string(slurm_tasks t) {
  switch (t) {
    case slurm_tasks::one: return "one";
    case slurm_tasks::per_node: return "per_node";
    case slurm_tasks::per_gpu: return "per_gpu";
  }
  return "one";
}

bool parse_slurm_tasks(const std::string& text, slurm_tasks& out) {
  for (auto t : {slurm_tasks::one, slurm_tasks::per_node, slurm_tasks::per_gpu})
    if (text == to_string(t)) {
      out = t;
      return true;
    }
  return false;
}

const char* to_string(slurm_via v) {
  return v == slurm_via::sbatch ? "sbatch" : "slurmrestd";
}

bool parse_slurm_via(const std::string& text, slurm_via& out) {
  if (text == "sbatch")
    out = slurm_via::sbatch;
  else if (text == "slurmrestd")
    out = slurm_via::slurmrestd;
  else
    return false;
  return true;
}

} // namespace paratune
