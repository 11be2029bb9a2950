// `paratune export SESSION [--db DIR] [--format megatron|json|sbatch|maxtext]
// [--args-only]`: the best configuration a tuning session measured, read
// from the pool: a GPU session's as the production command's parts (the
// environment its trial needed as `export NAME=value` lines, then the
// Megatron-LM arguments on one shell-quoted line, without the tuning run's
// own iteration count and log flags: core/production_command.hpp) or as
// JSON for scripts; a TPU session's as MaxText overrides.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "core/input_error.hpp"
#include "core/launch/production_batch.hpp"
#include "core/production_command.hpp"
#include "core/secret_env.hpp"
#include "core/shell_quote.hpp"
#include "core/training_config.hpp"
#include "messages/conversions.hpp"
#include "report/session_answer.hpp"
#include "report/session_summary.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/daemon_client_options.hpp"
#include "tools/paratune/json_output.hpp"
#include "tools/paratune/pool_reader.hpp"
#include "tools/paratune/prediction_view.hpp"
#include "tools/paratune/tpu_export.hpp"

namespace paratune::cli {

namespace {

enum class export_format { megatron, json, maxtext, sbatch };

export_format export_format_of(const std::string& word) {
  if (word == "json")
    return export_format::json;
  if (word == "maxtext")
    return export_format::maxtext;
  if (word == "sbatch")
    return export_format::sbatch;
  return export_format::megatron;
}

nlohmann::json best_as_json(const session_summary& s) {
  const auto& b = *s.best;
  auto env = nlohmann::json::object();
  for (const auto& [name, value] : best_production_environment(s))
    env[name] = value;
  nlohmann::json j = {{"session", s.session},
          {"job", s.job.job_name},
          {"trial", b.index},
          {"pool", b.pool},
          // Typed as `predict --json` and `plan --json` print it: "tp": 1,
          // "sp": true, "recompute": "full" (the pool keeps the text).
          {"config", config_json(wire::from_wire(b.config))},
          {"tflops_per_gpu", b.tflops_per_gpu},
          {"mfu", b.mfu},
          {"peak_memory_mib", b.peak_memory_mib},
          {"framework", s.job.framework},
          {"trainer_args", best_production_args(s)},
          {"env", env},
          {"full_run", full_run_json(s)},
          // Why this trial among those within noise of it (core/best_choice).
          {"tie_break", s.tie_text.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.tie_text)}};
  if (const auto key = own_args_key(s.job.framework); !key.empty())
    j[key] = j["trainer_args"]; // the key scripts read before there were others
  return j;
}

// The batch script of the best trial's production run, from its pool: the
// default simulated pool has no launch template, and gets torchrun per node.
std::string best_as_sbatch(const session_summary& s) {
  production_batch_request r;
  r.session = s.session;
  r.job_name = s.job.job_name;
  r.trial = s.best->index;
  r.pool = s.best->pool;
  r.nodes = s.job.nodes;
  r.gpus_per_node = s.job.cluster.devices_per_node;
  for (const auto& p : s.job.pools)
    if (p.name == s.best->pool && (p.kind == pool_kind::slurm || p.kind == pool_kind::local)) {
      r.launch = p.launch;
      r.tasks = p.tasks;
      if (p.gpus_per_node > 0)
        r.gpus_per_node = p.gpus_per_node;
      r.partition = p.partition;
      r.account = p.account;
      r.qos = p.qos;
      r.constraint = p.constraint;
      r.gres = p.gres;
      r.exclusive = p.exclusive;
      r.time_limit_minutes = p.time_limit_minutes;
    }
  r.framework_args = best_production_args(s);
  r.environment = best_production_environment(s);
  r.secret_names = s.job.secret_env;
  return production_batch_script(r);
}

// A TPU session (ASAP's loop): its best run as MaxText overrides, or as
// JSON as a GPU session's best is; it has no Megatron-LM form.
void refuse_megatron(const std::string& id, export_format format) {
  if (format == export_format::megatron || format == export_format::sbatch)
    throw input_error("session '" + id + "' is a TPU (MaxText) session: it has no Megatron-LM "
                      "form; use --format maxtext or --format json");
}

int print_tpu_best(const std::string& id, const tpu_best_run& best, export_format format) {
  const auto overrides = maxtext_overrides(best);
  if (format == export_format::json)
    print_json({{"session", id},
                {"framework", "maxtext"},
                {"trial", best.trial},
                {"step_time_ms", best.step_ms},
                {"maxtext_args", overrides},
                {"command", shell_command(overrides)}});
  else
    std::cout << shell_command(overrides) << "\n";
  return 0;
}

int export_tpu_session(const message_pool& pool, const std::string& id,
                       const std::vector<wire::envelope>& history, export_format format) {
  refuse_megatron(id, format);
  // The session's own end names its best run; a session stored before it
  // did is read from its runs' diagnoses.
  if (const auto best = best_tpu_run_in(history))
    return print_tpu_best(id, *best, format);
  const auto best = best_tpu_run(pool, id);
  return best ? print_tpu_best(id, *best, format) : 1;
}

/// A GPU session's best configuration in `format`.
int export_gpu_session(const std::string& id, const std::vector<wire::envelope>& history,
                       export_format format, bool args_only);

/// From a daemon (`--daemon`): its pool is locked while it runs.
int export_from_daemon(const daemon_client_options& daemon, const std::string& id,
                       export_format format, bool args_only) {
  check_session_id(id);
  int status = 1;
  const auto history = daemon.history(id, status);
  if (!history)
    return status;
  if (history->empty())
    throw input_error("no GPU tuning session '" + id + "' in the daemon at " + daemon.where());
  if (const auto tpu = best_tpu_run_in(*history)) {
    refuse_megatron(id, format);
    return print_tpu_best(id, *tpu, format);
  }
  return export_gpu_session(id, *history, format, args_only);
}

int export_session(const std::string& db, const std::string& id, export_format format,
                   bool args_only) {
  check_session_id(id);
  const auto pool = open_existing_pool(db, pool_access::read);
  if (!pool)
    return 1;
  const auto history = read_session(*pool, id);
  if (!history)
    return 1;
  if (history->empty() || summarize(id, *history).job.job_name.empty()) {
    if (has_tpu_trials(*pool, id))
      return export_tpu_session(*pool, id, *history, format);
    throw input_error("no GPU tuning session '" + id + "' in the pool " + db);
  }
  return export_gpu_session(id, *history, format, args_only);
}

int export_gpu_session(const std::string& id, const std::vector<wire::envelope>& history,
                       export_format format, bool args_only) {
  const auto s = summarize(id, history);
  if (s.job.job_name.empty())
    throw input_error("session '" + id + "' is not a GPU tuning session");
  if (format == export_format::maxtext)
    throw input_error("session '" + id + "' is a GPU (Megatron-LM) session: it has no MaxText "
                      "form; use --format megatron or --format json");
  if (!s.best) {
    std::cerr << "error: session " << id << " has no measured trial to export\n";
    return 1;
  }
  if (format == export_format::json) {
    print_json(best_as_json(s));
    return 0;
  }
  if (format == export_format::sbatch) {
    // Its data, tokenizer and checkpoint placeholders are Megatron-LM's flags.
    if (s.job.framework != "megatron-lm")
      throw input_error("session '" + id + "' trains " + framework_title_of(s)
                        + ": --format sbatch writes Megatron-LM's data, tokenizer and "
                          "checkpoint flags; use the default format or --format json");
    std::cout << best_as_sbatch(s);
    return 0;
  }
  // Lines a shell can source, then the arguments to put after the
  // training script; --args-only leaves the arguments alone, for $(...).
  const auto answer = answer_of(s);
  if (answer->command.rfind('#', 0) == 0) { // the model's arguments did not render
    std::cerr << "error: session " << id << ": " << answer->command.substr(2) << '\n';
    return 1;
  }
  std::cout << (args_only ? answer->command + "\n" : production_command_text(*answer));
  return 0;
}

command_action setup_export(CLI::App& sub) {
  auto id = std::make_shared<std::string>();
  auto db = std::make_shared<std::string>("paratune-pool");
  auto format = std::make_shared<std::string>("megatron");
  sub.add_option("SESSION", *id, "the session id, as `tune` printed it")->required();
  const auto* db_option = sub.add_option("--db", *db, "the pool directory (default ./paratune-pool)");
  sub.add_option("--format", *format,
                 "megatron (default): the arguments on one line; json; sbatch: a batch script "
                 "of the production run, from the best trial's pool, with FILL-IN placeholders "
                 "for data, tokenizer and checkpoints; maxtext: a TPU session's best mesh and "
                 "settings as MaxText overrides")
    ->check(CLI::IsMember({"megatron", "json", "maxtext", "sbatch"}));
  auto args_only = std::make_shared<bool>(false);
  sub.add_flag("--args-only", *args_only,
               "megatron: the arguments line alone, without the environment's export lines");
  auto daemon = std::make_shared<daemon_client_options>();
  daemon->add_to(sub, db_option);
  return [id, db, format, args_only, daemon] {
    return daemon->source() == session_source::pool
             ? export_session(*db, *id, export_format_of(*format), *args_only)
             : export_from_daemon(*daemon, *id, export_format_of(*format), *args_only);
  };
}

} // namespace

static registrar export_command{{"export",
                    "The best configuration of a tuning session as its production command's "
                    "environment and Megatron-LM arguments, JSON or MaxText overrides",
                    setup_export}};

} // namespace paratune::cli
