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
#include "adapters/config/private_dir.hpp"
#include "core/human_units.hpp"
#include "core/input_error.hpp"
#include "messages/conversions.hpp"
#include "messages/ec.hpp"
#include "messages/topics.hpp"
#include "messages/type_ids.hpp"
#include "session_start/session_plan.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/command_runtime.hpp"
#include "report/session_summary.hpp"
#include "tools/paratune/tpu_tune.hpp"
#include "tools/paratune/tune_relay_bus.hpp"
#include "tools/paratune/tune_dry_run.hpp"
#include "tools/paratune/tune_view.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

struct tune_options {
  std::string job_file;
  std::string db = "paratune-pool";
  int trials = 0;
  bool json = false;
  bool dry_run = false;
};

int run_tune(const tune_options& o) {
  // A TPU mesh experiment runs ASAP's diagnose-and-propose loop (tpu_tune.hpp).
  // Bad input: exit 2 before the pool is touched.
  auto plan = plan_session_file(o.job_file, {{}, o.db, o.trials});
  if (o.dry_run) {
    if (plan.kind == job_kind::tpu_experiment)
      throw input_error(o.job_file + ": --dry-run forecasts a GPU tuning job; a TPU experiment's "
                        "meshes are ranked by `paratune plan --experiment " + o.job_file + "`");
    plan.job.trials = plan.record.trials; // --trials, when given
    return print_tune_dry_run(plan, o.job_file, o.json);
  }
  if (plan.kind == job_kind::tpu_experiment)
    return run_tpu_tune({o.job_file, o.db, o.trials, 1, o.json});
  // The pool holds every trial's output: its owner's alone, as a daemon's.
  if (const auto warning = prepare_private_dir(o.db, "--db"); !warning.empty())
    std::cerr << "warning: " << warning << '\n';
  const auto& job = plan.job;
  auto& record = plan.record;
  // Relays on other machines publish to an ingress, never to the agents' bus.
  const auto& ingress = plan.relay_ingress;
  std::unique_ptr<tune_relay_bus> relays;
  if (!ingress.empty())
    relays = std::make_unique<tune_relay_bus>();
  command_runtime rt{o.db, true, relays ? relays->agents() : bus_endpoints{},
                     relays ? std::optional(relays->master()) : std::nullopt};
  if (!rt.started())
    return 1;
  if (relays) {
    relays->open_ingress(ingress, rt->bus().publish);
    record.relay_endpoint = reachable(relays->ingress());
    record.relay_subscribe = rt->bus().subscribe;
  }
  auto& sys = rt.system();
  const auto claimed = rt.claim_session_id();
  if (!claimed)
    return 1;
  const auto& id = *claimed;
  if (!o.json)
    std::cout << "session " << id << ": " << job.model.name << " on " << job.world_size() << " x "
              << job.cluster.device.name << " (" << job.cluster.name << "), "
              << "a budget of " << count_of(record.trials, "trial") << ", pool " << o.db << "\n"
              << std::flush; // at once under tee or nohup too, not when trial 1 ends
  auto view = sys.spawn(tune_view, id, record.trials, isatty(STDOUT_FILENO) != 0, o.json);
  auto& bridge = rt->bridge();
  for (const auto& prefix : {topics::record(id), "telemetry." + id + "."})
    bridge.subscribe(prefix, view);
  caf::scoped_actor self{sys};
  auto session = rt->start_session(id, record, listener_of(self));
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

command_action setup_tune(CLI::App& app) {
  auto o = std::make_shared<tune_options>();
  app.add_option("job", o->job_file, "the job file (YAML)")->required();
  app.add_option("--db", o->db, "the Global Message Pool directory (RocksDB)");
  app.add_option("--trials", o->trials, "trial budget (overrides the job's)")
    ->check(CLI::Range(1, 100000));
  app.add_flag("--json", o->json, "print one JSON object at the end instead of text");
  app.add_flag("--dry-run", o->dry_run,
               "check the job, then print the search space before and after screening, the "
               "plan's top five and the predicted GPU-hours to the stop; launch nothing, store "
               "nothing");
  return [o] { return run_tune(*o); };
}

registrar tune_command{{"tune", "run a tuning session on the embedded simulated cluster", setup_tune}};

} // namespace

} // namespace paratune::cli
