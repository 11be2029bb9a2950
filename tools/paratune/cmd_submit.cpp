// paratune submit JOB.yaml: hands a tuning job to the daemon, which runs it
// as a session of its own; prints the session's id.

#include <iostream>

#include <CLI/CLI.hpp>

#include "adapters/config/job_inlining.hpp"
#include "adapters/config/job_loader.hpp"
#include "core/initial_check.hpp"
#include "core/input_error.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/daemon_client_options.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "adapters/diagnosis/tpu_tuning_loader.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

struct submit_options {
  std::string job_file;
  int trials = 0;
  bool json = false;
  daemon_client_options daemon;
};

int run_submit(const submit_options& o) {
  control::request r;
  r.op = control::to_string(control::control_op::submit);
  if (is_tpu_experiment_file(o.job_file)) {
    // A TPU experiment: refused here, as the daemon would, before it is sent.
    r.job_yaml = read_text_file(o.job_file);
    (void)parse_experiment(r.job_yaml, o.job_file);
    (void)parse_tpu_tuning(r.job_yaml, o.job_file);
  } else {
    // Refused here, with the file's line, before the daemon sees it; an
    // initial configuration that could only be skipped too, as tune refuses it.
    if (const auto refused = initial_refusal(load_job(o.job_file)))
      throw input_error(o.job_file + ": " + *refused);
    // The model and cluster files as read here, not the daemon's files of
    // the same names; checked as the daemon will read it (its size, above all).
    r.job_yaml = inline_job_files(o.job_file);
    (void)load_job_text(r.job_yaml, o.job_file);
  }
  r.job_path = o.job_file;
  r.trials = o.trials;
  int status = 0;
  auto reply = o.daemon.call(r, status);
  if (!reply)
    return status;
  if (o.json)
    print_json({{"session", reply->session}});
  else
    std::cout << reply->session << '\n';
  return 0;
}

command_action setup_submit(CLI::App& app) {
  auto o = std::make_shared<submit_options>();
  app.add_option("job", o->job_file, "the job file (YAML)")->required();
  app.add_option("--trials", o->trials, "trial budget (overrides the job's)")
    ->check(CLI::Range(1, 100000));
  app.add_flag("--json", o->json, "print {\"session\": ID}");
  o->daemon.add_to(app);
  return [o] { return run_submit(*o); };
}

registrar submit_command{{"submit", "submit a tuning job or a TPU experiment to the daemon; prints the session id", setup_submit}};

} // namespace

} // namespace paratune::cli
