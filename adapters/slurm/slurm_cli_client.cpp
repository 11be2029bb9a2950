#include "adapters/slurm/slurm_cli_client.hpp"

#include "adapters/process/captured_command.hpp"
#include "adapters/process/process_environment.hpp"
#include "adapters/slurm/slurm_cli_output.hpp"
#include "core/trial_environment.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace paratune {

namespace {

using ending = captured_command_result::ending;

// A command that did not run to its own end is a local problem (not
// installed) or a hung controller (timeout).
std::optional<slurm_error> did_not_finish(const std::string& what,
                                          const captured_command_result& r,
                                          std::chrono::milliseconds timeout) {
  switch (r.how) {
    case ending::exited: return std::nullopt;
    case ending::not_started: return slurm_error{slurm_failure::command_failed, r.failure};
    case ending::timed_out:
      return slurm_error{slurm_failure::unreachable,
                         what + " did not finish within " + std::to_string(timeout.count())
                             + " ms (controller not answering?)"};
    case ending::signalled:
      return slurm_error{slurm_failure::command_failed,
                         what + " was killed by signal " + std::to_string(r.exit_code - 128)};
  }
  return slurm_error{slurm_failure::command_failed, what + " failed"};
}

// The job's environment for sbatch --export-file: NAME=VALUE entries
// separated by NUL bytes, in a private temporary file removed afterwards.
class export_file {
 public:
  explicit export_file(const std::vector<std::pair<std::string, std::string>>& env) {
    char path[] = "/tmp/paratune-sbatch-env-XXXXXX";
    int fd = mkostemp(path, O_CLOEXEC);  // mode 0600
    if (fd < 0) {
      error_ = std::string("cannot create the environment file: ") + std::strerror(errno);
      return;
    }
    close(fd);
    path_ = path;
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    for (const auto& [k, v] : env)
      out << k << '=' << v << '\0';
    out.flush();
    if (!out)
      error_ = "cannot write the environment file " + path_;
  }
  ~export_file() {
    if (!path_.empty())
      unlink(path_.c_str());
  }
  export_file(const export_file&) = delete;
  export_file& operator=(const export_file&) = delete;

  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  std::string error_;
};

} // namespace

slurm_cli_client::slurm_cli_client(slurm_cli_options options) : options_(std::move(options)) {}

std::string slurm_cli_client::tool(const char* name) const {
  return options_.bin_dir.empty() ? std::string(name) : options_.bin_dir + "/" + name;
}

namespace {

// Slurm's tools retry a missing slurm.conf for 60 s before they give up;
// a configured path that is not a file is known to be down at once.
std::optional<slurm_error> missing_conf(const slurm_cli_options& o) {
  struct stat st {};
  if (!o.slurm_conf.empty() && (stat(o.slurm_conf.c_str(), &st) != 0 || !S_ISREG(st.st_mode)))
    return slurm_error{slurm_failure::unreachable,
                       "the cluster's slurm.conf " + o.slurm_conf + " is not a readable file"};
  return std::nullopt;
}

// Slurm's tools never inherit this process's environment (the reasoner's
// API key, SBATCH_* defaults that would change a job): scontrol and scancel
// get its base variables (core/trial_environment.hpp), SLURM_CONF, and
// SLURM_JWT where set (a cluster on auth/jwt). sbatch copies every SLURM_*
// variable of its own environment into the job, so it never gets SLURM_JWT;
// its environment is the job's (submit).
// The cluster's slurm.conf: the configured one, else this process's
// SLURM_CONF (a path, no secret), else the tools' own default.
void add_slurm_conf(const slurm_cli_options& o, const process_env& inherited,
                    captured_command_options& c) {
  if (!o.slurm_conf.empty()) {
    c.set_env.emplace_back("SLURM_CONF", o.slurm_conf);
    return;
  }
  for (const auto& [name, value] : inherited)
    if (name == "SLURM_CONF")
      c.set_env.emplace_back(name, value);
}

captured_command_options command_options(const slurm_cli_options& o) {
  captured_command_options c;
  c.timeout = o.timeout;
  c.inherit_env = false;
  const auto inherited = environment_of_this_process();
  c.set_env = trial_environment({inherited, {}, {}, {}, {}});
  for (const auto& [name, value] : inherited)
    if (name == "SLURM_JWT")
      c.set_env.emplace_back(name, value);
  add_slurm_conf(o, inherited, c);
  return c;
}

// sbatch's own environment is the job's and SLURM_CONF, and --export names
// exactly the job's variables: the job's environment is what paratune chose
// whichever way sbatch reads it (and an srun in the job passes on the same).
captured_command_options sbatch_options(const slurm_cli_options& o, const slurm_job_request& job) {
  captured_command_options c;
  c.timeout = o.timeout;
  c.inherit_env = false;
  c.set_env = job.environment;
  add_slurm_conf(o, environment_of_this_process(), c);
  c.stdin_text = job.script;  // sbatch reads the script from stdin when given no file
  return c;
}

std::string export_option(const slurm_job_request& job) {
  std::string names;
  for (const auto& [name, value] : job.environment)
    names += (names.empty() ? "" : ",") + name;
  return "--export=" + (names.empty() ? std::string("NONE") : names);
}

} // namespace

slurm_result<slurm_job_id> slurm_cli_client::submit(const slurm_job_request& job) {
  if (auto bad = check_request(job))
    return *bad;
  for (const std::string* v : {&job.name, &job.working_directory, &job.output_path})
    if (ambiguous_in_scontrol_line(*v))
      return slurm_error{slurm_failure::invalid_request,
                         "'" + *v
                             + "' holds a space followed by Key=, which would make scontrol's "
                               "job line ambiguous"};
  if (auto e = missing_conf(options_))
    return *e;
  export_file env(job.environment);
  if (!env.error().empty())
    return slurm_error{slurm_failure::command_failed, env.error()};

  std::vector<std::string> argv{tool("sbatch"),
                                "--parsable",
                                "--job-name=" + job.name,
                                "--partition=" + job.partition,
                                "--nodes=" + std::to_string(job.nodes),
                                "--chdir=" + job.working_directory,
                                export_option(job),
                                "--export-file=" + env.path()};
  if (job.gpus_per_node > 0)
    argv.push_back("--gpus-per-node=" + std::to_string(job.gpus_per_node));
  if (job.time_limit_minutes > 0)
    argv.push_back("--time=" + std::to_string(job.time_limit_minutes));
  if (job.tasks_per_node > 0)
    argv.push_back("--ntasks-per-node=" + std::to_string(job.tasks_per_node));
  for (const auto& [option, value] : {std::pair{"--account=", &job.account},
                                      std::pair{"--qos=", &job.qos},
                                      std::pair{"--constraint=", &job.constraint},
                                      std::pair{"--gres=", &job.gres}})
    if (!value->empty())
      argv.push_back(option + *value);
  if (job.exclusive)
    argv.push_back("--exclusive");
  if (!job.output_path.empty()) {
    argv.push_back("--output=" + job.output_path);
    argv.push_back("--error=" + job.output_path);
  }
  captured_command_result r = run_captured(argv, sbatch_options(options_, job));
  if (auto e = did_not_finish("sbatch", r, options_.timeout))
    return *e;
  if (r.exit_code != 0)
    return classify_cli_failure("sbatch", r.exit_code, r.err);
  return parse_sbatch_parsable(r.out);
}

slurm_result<slurm_job_status> slurm_cli_client::state(slurm_job_id id) {
  if (auto e = missing_conf(options_))
    return *e;
  captured_command_result r = run_captured(
      {tool("scontrol"), "show", "job", "-o", std::to_string(id)}, command_options(options_));
  if (auto e = did_not_finish("scontrol show job", r, options_.timeout))
    return *e;
  if (r.exit_code != 0)
    return classify_cli_failure("scontrol show job", r.exit_code, r.err);
  auto status = parse_scontrol_job(r.out);
  if (status && status.value().id != id)
    return slurm_error{slurm_failure::malformed,
                       "scontrol show job " + std::to_string(id) + " answered for job "
                           + std::to_string(status.value().id)};
  return status;
}

slurm_result<> slurm_cli_client::cancel(slurm_job_id id) {
  if (auto e = missing_conf(options_))
    return *e;
  // Without -v, scancel exits 0 and prints nothing for a job id it does not
  // know; with it, it says "Kill job error on job id N: REASON" on stderr.
  captured_command_result r =
      run_captured({tool("scancel"), "-v", std::to_string(id)}, command_options(options_));
  if (auto e = did_not_finish("scancel", r, options_.timeout))
    return *e;
  if (r.exit_code != 0)
    return classify_cli_failure("scancel", r.exit_code, r.err);
  if (auto at = r.err.find("Kill job error"); at != std::string::npos) {
    if (r.err.find("already completing or completed", at) != std::string::npos)
      return std::monostate{};  // it ended by itself first: nothing left to cancel
    slurm_error e = classify_cli_failure("scancel", r.exit_code, r.err.substr(at));
    if (e.kind == slurm_failure::command_failed)
      e.kind = slurm_failure::refused;
    return e;
  }
  return std::monostate{};
}

slurm_result<slurm_ping> slurm_cli_client::ping() {
  if (auto e = missing_conf(options_))
    return *e;
  captured_command_result r = run_captured({tool("scontrol"), "ping"}, command_options(options_));
  if (auto e = did_not_finish("scontrol ping", r, options_.timeout))
    return *e;
  // scontrol ping exits 1 when the controller is DOWN and says so on stdout.
  if (r.exit_code != 0 && r.out.find("Slurmctld(") == std::string::npos)
    return classify_cli_failure("scontrol ping", r.exit_code, r.err);
  return parse_scontrol_ping(r.out);
}

} // namespace paratune
