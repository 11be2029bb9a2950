#pragma once

// A short GPU tuning job (Llama3-8B on 8 A100) as a session_opened record,
// for tests that drive sessions on a runtime.

#include <cstdlib>
#include <string>

#include "adapters/config/job_loader.hpp"
#include "messages/conversions.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

inline wire::session_opened small_session(int trials) {
  setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  auto job = load_job(test::source_dir() + "/configs/examples/llama3-8b-a100x8.yaml");
  wire::session_opened s;
  s.job_name = job.name;
  s.model = wire::to_wire(job.model);
  s.cluster = wire::to_wire(job.cluster);
  s.world_size = job.world_size();
  s.precision = to_string(job.prec);
  s.initial = wire::to_wire(job.initial);
  s.search = job.search;
  s.trials = trials;
  s.train_iters = 6;
  s.seed = 3;
  s.sim_path = test::bin_dir() + "/paratune-sim";
  s.sim_cluster = job.cluster_ref;
  s.sim_time_scale = 0.00005;
  s.sim_failure_rate = 0;
  return s;
}

} // namespace paratune::test
