// paratune tune JOB.yaml: a closed-loop tuning session on the simulated cluster.

#include <filesystem>
#include <iostream>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/bus_bridge.hpp"
#include "actors/runtime.hpp"
#include "actors/tuning_session.hpp"
#include "adapters/config/executable_paths.hpp"
#include "adapters/config/job_loader.hpp"
#include "core/input_error.hpp"
#include "messages/conversions.hpp"
#include "messages/ec.hpp"
#include "messages/topics.hpp"
#include "messages/type_ids.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/command_runtime.hpp"
#include "report/session_summary.hpp"
#include "tools/paratune/tpu_tune.hpp"
#include "tools/paratune/tune_view.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

struct tune_options {
  std::string job_file;
  std::string db = "paratune-pool";
  int trials = 0;
  bool json = false;
};

std::string sim_executable() {
  return sibling_executable("paratune-sim", "PARATUNE_SIM");
}

/// The relay program a relay pool's jobs run: the pool's relay_path, else
/// the paratune-relay beside this executable.
std::string relay_executable(const pool_spec& p) {
  return !p.relay_path.empty() ? p.relay_path
                               : sibling_executable("paratune-relay", "PARATUNE_RELAY");
}

/// The bus a relay pool needs: TCP, so that relays on the nodes reach it;
/// the pool's relay_bind for the side they publish to, else the loopback
/// (a node that is this machine). Empty (a private inproc bus) otherwise.
bus_endpoints bus_for(const job_spec& job) {
  for (const auto& p : job.pools)
    if (p.relay)
      return {p.relay_bind.empty() ? "tcp://127.0.0.1:*" : p.relay_bind, "tcp://127.0.0.1:*"};
  return {};
}

/// A bound endpoint others can connect to: a wildcard host ("0.0.0.0",
/// "*") becomes this machine's name.
std::string reachable(const std::string& bound) {
  for (const std::string wildcard : {"tcp://0.0.0.0:", "tcp://*:"})
    if (bound.rfind(wildcard, 0) == 0) {
      char host[256] = {};
      if (gethostname(host, sizeof host - 1) == 0 && host[0])
        return "tcp://" + std::string(host) + ":" + bound.substr(wildcard.size());
    }
  return bound;
}

wire::session_opened session_record(const job_spec& job, const tune_options& o) {
  wire::session_opened s;
  s.job_name = job.name;
  s.model = wire::to_wire(job.model);
  s.cluster = wire::to_wire(job.cluster);
  s.nodes = job.nodes;
  s.world_size = job.world_size();
  s.precision = to_string(job.prec);
  s.initial = wire::to_wire(job.initial);
  s.search = job.search;
  s.trials = o.trials > 0 ? o.trials : job.trials;
  s.tokens = job.tokens;
  if (job.baseline)
    s.baseline = {true, wire::to_wire(job.baseline->config), job.baseline->tflops_per_gpu};
  s.train_iters = job.train_iters;
  s.retry_transient = job.retry_transient;
  s.seed = job.seed;
  s.sim_time_scale = job.sim_time_scale;
  s.sim_path = sim_executable();
  s.sim_cluster = job.cluster_ref;
  s.job_yaml = read_text_file(o.job_file);
  for (const auto& p : job.pools)
    s.pools.push_back({p.name, p.kind, p.capacity, p.launch, p.gpus_per_node, p.partition,
                       p.via == slurm_via::slurmrestd, p.url, p.token_env, p.token_file, p.user,
                       p.dcgm_url, p.dcgm_period_s, p.relay, p.relay ? relay_executable(p) : ""});
  s.workdir = std::filesystem::absolute(o.db).string() + "/trials";
  if (job.early_stop) {
    const auto& p = *job.early_stop;
    s.early_stop = {true, p.warmup, p.stable_after, p.tolerance, p.rung, p.hang_s, p.wall_s};
  }
  return s;
}

int run_tune(const tune_options& o) {
  // A TPU mesh experiment runs ASAP's diagnose-and-propose loop (tpu_tune.hpp).
  if (is_tpu_experiment(o.job_file))
    return run_tpu_tune({o.job_file, o.db, o.trials, 1, o.json});
  const auto job = load_job(o.job_file); // bad input: exit 2 before the pool is touched
  auto record = session_record(job, o);
  command_runtime rt{o.db, true, bus_for(job)};
  if (!rt.started())
    return 1;
  if (!bus_for(job).publish.empty()) {
    record.relay_endpoint = reachable(rt->bus().publish);
    record.relay_subscribe = rt->bus().subscribe;
  }
  auto& sys = rt.system();
  const auto id = new_session_id();
  if (!o.json)
    std::cout << "session " << id << ": " << job.model.name << " on " << job.world_size() << " x "
              << job.cluster.device.name << " (" << job.cluster.name << "), " << record.trials
              << " trials, pool " << o.db << "\n";
  auto view = sys.spawn(tune_view, id, record.trials, isatty(STDOUT_FILENO) != 0, o.json);
  auto& bridge = rt->bridge();
  for (const auto& prefix : {topics::proposal(id), topics::trial_prefix(id),
                             topics::failure_prefix(id), "telemetry." + id + "."})
    bridge.subscribe(prefix, view);
  caf::scoped_actor self{sys};
  auto session = rt->start_session(id, record, self);
  auto end = await_session(self, session);
  auto history = rt->history(id);
  rt->stop();
  caf::anon_send_exit(view, caf::exit_reason::user_shutdown);
  if (!end || end->state == session_state::failed) {
    std::cerr << "error: session " << id << " failed: "
              << (end ? end->text : describe(end.error())) << '\n';
    return 1;
  }
  if (!history) {
    std::cerr << "error: " << describe(history.error()) << '\n';
    return 1;
  }
  auto summary = summarize(id, *history);
  if (o.json)
    print_json(to_json(summary));
  else
    std::cout << render_text(summary);
  return summary.best ? 0 : 1;
}

command_action setup(CLI::App& app) {
  auto o = std::make_shared<tune_options>();
  app.add_option("job", o->job_file, "the job file (YAML)")->required();
  app.add_option("--db", o->db, "the Global Message Pool directory (RocksDB)");
  app.add_option("--trials", o->trials, "trial budget (overrides the job's)")
    ->check(CLI::Range(1, 100000));
  app.add_flag("--json", o->json, "print one JSON object at the end instead of text");
  return [o] { return run_tune(*o); };
}

registrar reg{{"tune", "run a tuning session on the embedded simulated cluster", setup}};

} // namespace

} // namespace paratune::cli
