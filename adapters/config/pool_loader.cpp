#include "adapters/config/pool_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "adapters/config/env_fields.hpp"
#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"
#include "core/launch/launch_template.hpp"
#include "core/slurm_time.hpp"
#include "core/slurm_word.hpp"
#include "core/telemetry/dcgm_url.hpp"
#include "core/text.hpp"

namespace paratune {

using yaml_fields::optional;
using yaml_fields::optional_int;
using yaml_fields::optional_real;
using yaml_fields::required;

namespace {

constexpr std::string_view pool_keys[] = {"name", "kind", "capacity", "launch", "partition",
                                           "via", "url", "token_env", "token_file", "user",
                                           "gpus_per_node", "dcgm", "dcgm_period_s", "relay",
                                           "relay_path", "relay_bind", "table", "env", "tasks",
                                           "account", "qos", "constraint", "gres", "exclusive",
                                           "time", "workdir"};
/// The keys only a Slurm pool takes.
const char* const slurm_keys[] = {"partition", "via", "url", "token_env", "token_file", "user",
                                  "relay", "relay_path", "relay_bind", "tasks", "account", "qos",
                                  "constraint", "gres", "exclusive", "time"};

// Names that go into paths, argv entries and messages: no spaces or quotes.
constexpr size_t name_size = 64;

std::vector<std::string> read_launch(const YAML::Node& n, const std::string& at) {
  if (!n.IsSequence() || n.size() == 0)
    throw input_error(at + ": field 'launch' must be a list of command tokens, e.g. "
                           "[torchrun, --nproc-per-node, \"{gpus_per_node}\", pretrain_gpt.py, "
                           "\"{megatron_args}\"]");
  std::vector<std::string> tokens;
  for (const auto& t : n) {
    if (!t.IsScalar())
      throw input_error(at + ": field 'launch': every token must be a single value");
    tokens.push_back(t.Scalar());
  }
  try {
    launch_template::parse(tokens); // refuses unknown placeholders now, not at launch
  } catch (const input_error& e) {
    throw input_error(at + ": " + e.what());
  }
  return tokens;
}

/// relay, relay_path, relay_bind: the relay's bus must be TCP, since the
/// relay runs on another machine (tools/paratune-relay).
void read_relay(const YAML::Node& n, const std::string& at, pool_spec& p) {
  p.relay = yaml_fields::optional_flag(n, "relay", at, false);
  p.relay_path = optional<std::string>(n, "relay_path", at, "");
  p.relay_bind = optional<std::string>(n, "relay_bind", at, "");
  if (!p.relay && (n["relay_path"] || n["relay_bind"]))
    throw input_error(at + ": fields 'relay_path' and 'relay_bind' need 'relay: true'");
  if (!p.relay_bind.empty() && p.relay_bind.rfind("tcp://", 0) != 0)
    throw input_error(at + ": field 'relay_bind': expected tcp://HOST:PORT (a port of * takes "
                           "a free one), got '" + p.relay_bind + "'");
}

/// tasks, account, qos, constraint, gres, exclusive, time: how the batch
/// script starts the command and what the job asks of the scheduler.
void read_scheduler_options(const YAML::Node& n, const std::string& at, pool_spec& p) {
  const auto tasks = optional<std::string>(n, "tasks", at, "one");
  if (!parse_slurm_tasks(tasks, p.tasks))
    throw input_error(at + ": field 'tasks': expected one, per_node or per_gpu, got '" + tasks
                      + "'");
  for (const auto& [word, value] : {std::pair{slurm_word::account, &p.account},
                                    std::pair{slurm_word::qos, &p.qos},
                                    std::pair{slurm_word::constraint, &p.constraint},
                                    std::pair{slurm_word::gres, &p.gres}}) {
    const char* key = to_string(word);
    *value = optional<std::string>(n, key, at, "");
    if (n[key])
      if (auto why = slurm_word_error(word, *value))
        throw input_error(at + ": field '" + key + "': " + *why);
  }
  p.exclusive = optional<bool>(n, "exclusive", at, false);
  if (n["time"]) {
    const auto text = required<std::string>(n, "time", at);
    const auto minutes = parse_slurm_time_minutes(text);
    if (!minutes)
      throw input_error(at + ": field 'time': '" + text
                        + "' is not a Slurm time limit (MM, HH:MM:SS, D-HH or D-HH:MM:SS, "
                          "up to 366 days)");
    p.time_limit_minutes = *minutes;
  }
}

void read_slurm(const YAML::Node& n, const std::string& at, pool_spec& p) {
  read_scheduler_options(n, at, p);
  p.partition = required<std::string>(n, "partition", at);
  if (!is_plain_name(p.partition, name_size))
    throw input_error(at + ": field 'partition': '" + p.partition
                      + "' is not a partition name (letters, digits, '_', '-', '.')");
  const auto via = optional<std::string>(n, "via", at, "sbatch");
  if (!parse_slurm_via(via, p.via))
    throw input_error(at + ": field 'via': expected sbatch or slurmrestd, got '" + via + "'");
  if (p.via == slurm_via::sbatch)
    return;
  p.url = required<std::string>(n, "url", at);
  const bool unix_socket = p.url.rfind("unix:/", 0) == 0;
  if (!unix_socket && p.url.rfind("http://", 0) != 0 && p.url.rfind("https://", 0) != 0)
    throw input_error(at + ": field 'url': expected unix:/PATH or http(s)://HOST:PORT, got '"
                      + p.url + "'");
  p.token_env = optional<std::string>(n, "token_env", at, "");
  p.token_file = optional<std::string>(n, "token_file", at, "");
  p.user = optional<std::string>(n, "user", at, "");
  if (!p.token_env.empty() && !is_identifier(p.token_env))
    throw input_error(at + ": field 'token_env': '" + p.token_env
                      + "' is not an environment variable name");
  if (!unix_socket && p.token_env.empty() && p.token_file.empty())
    throw input_error(at + ": slurmrestd over TCP needs a JWT: give token_env or token_file");
}

// An http(s) URL with a host and nothing a request line cannot carry: it is
// handed to libcurl as is, and any other scheme (file:, ftp:) is refused.
bool is_http_url(const std::string& url) {
  std::string rest;
  if (url.rfind("http://", 0) == 0)
    rest = url.substr(7);
  else if (url.rfind("https://", 0) == 0)
    rest = url.substr(8);
  else
    return false;
  if (rest.empty() || rest.front() == '/' || rest.front() == ':' || url.size() > 2048)
    return false;
  for (unsigned char c : url)
    if (c <= 0x20 || c >= 0x7f)
      return false;
  return true;
}

/// workdir: where the pool's trial directories go. Checked now, not when
/// the first job cannot write its output: a relative path would mean the
/// compute node's working directory, and a directory that is not there is
/// a typo or a file system this machine does not mount.
std::string read_workdir(const YAML::Node& n, const std::string& at, pool_kind kind) {
  if (kind != pool_kind::local && kind != pool_kind::slurm)
    throw input_error(at + ": field 'workdir' is only for local and slurm pools");
  const auto dir = required<std::string>(n, "workdir", at);
  for (unsigned char c : dir)
    if (c < 0x20 || c == 0x7f)
      throw input_error(at + ": field 'workdir': the path holds a control character");
  if (dir.empty() || dir.front() != '/')
    throw input_error(at + ": field 'workdir': '" + dir
                      + "' is not an absolute path (give the directory on the file system the "
                        "compute nodes share, e.g. /shared/$USER/paratune)");
  std::error_code ec;
  const auto st = std::filesystem::status(dir, ec);
  if (!std::filesystem::exists(st))
    throw input_error(at + ": field 'workdir': directory '" + dir + "' does not exist"
                      + (ec && ec != std::errc::no_such_file_or_directory
                           ? " or cannot be reached (" + ec.message() + ")"
                           : std::string()));
  if (!std::filesystem::is_directory(st))
    throw input_error(at + ": field 'workdir': '" + dir + "' is not a directory");
  // One form of the path: the trial directories are named under it.
  auto clean = std::filesystem::path(dir).lexically_normal().string();
  if (clean.size() > 1 && clean.back() == '/')
    clean.pop_back();
  return clean;
}

void read_dcgm(const YAML::Node& n, const std::string& at, pool_spec& p) {
  if (!n["dcgm"]) {
    if (n["dcgm_period_s"])
      throw input_error(at + ": field 'dcgm_period_s' needs field 'dcgm' (the exporter's URL)");
    return;
  }
  p.dcgm_url = required<std::string>(n, "dcgm", at);
  // {host} stands for each node of a Slurm job: the URL must be one with
  // any node name in its place.
  const bool per_node = names_job_hosts(p.dcgm_url);
  if (!is_http_url(per_node ? dcgm_url_for_host(p.dcgm_url, "node") : p.dcgm_url))
    throw input_error(at + ": field 'dcgm': expected http(s)://HOST:PORT/metrics "
                      "(HOST may be {host}, each node of a Slurm job), got '"
                      + p.dcgm_url + "'");
  if (per_node && p.kind != pool_kind::slurm)
    throw input_error(at + ": field 'dcgm': {host} names the nodes of a Slurm job; a "
                      + std::string(to_string(p.kind)) + " pool has none: give the exporter's own host");

  p.dcgm_period_s = optional_real(n, "dcgm_period_s", at, 0.1, 3600, 5);
}

pool_spec read_pool(const YAML::Node& n, const std::string& file, size_t index) {
  const auto at = file + ": pools[" + std::to_string(index) + "]";
  if (!n.IsMap())
    throw input_error(at + ": expected a mapping such as {name: a100, kind: slurm, ...}");
  yaml_fields::refuse_unknown_keys(n, pool_keys, file, "pools[" + std::to_string(index) + "]");
  pool_spec p;
  p.name = required<std::string>(n, "name", at);
  if (!is_plain_name(p.name, name_size))
    throw input_error(at + ": field 'name': '" + p.name
                      + "' must be 1 to 64 letters, digits, '_', '-' or '.'");
  const auto kind = required<std::string>(n, "kind", at);
  if (!parse_pool_kind(kind, p.kind))
    throw input_error(at + ": field 'kind': expected simulated, local, slurm or replay, got '" + kind
                      + "'");
  p.capacity = optional_int(n, "capacity", at, {1, 1024}, 1);
  p.gpus_per_node = optional_int(n, "gpus_per_node", at, {0, 1024}, 0);
  if (p.kind == pool_kind::replay) {
    // Its runs are read with the job (job_loader): they depend on the model.
    p.table = required<std::string>(n, "table", at);
    if (n["launch"])
      throw input_error(at + ": a replay pool launches nothing: remove field 'launch'");
  } else if (n["table"])
    throw input_error(at + ": field 'table' is only for replay pools");
  if (n["launch"])
    p.launch = read_launch(n["launch"], at);
  else if (p.kind != pool_kind::simulated && p.kind != pool_kind::replay)
    throw input_error(at + ": a " + std::string(to_string(p.kind))
                      + " pool needs field 'launch' (the training command)");
  read_dcgm(n, at, p);
  if (n["workdir"])
    p.workdir = read_workdir(n, at, p.kind);
  if (n["env"])
    p.env = read_env_field(n["env"], at);
  if (p.kind == pool_kind::slurm) {
    read_slurm(n, at, p);
    read_relay(n, at, p);
  } else {
    for (const char* key : slurm_keys)
      if (n[key])
        throw input_error(at + ": field '" + key + "' is only for slurm pools");
    if (!p.launch.empty())
      if (const auto f = launch_template::parse(p.launch).runtime_field())
        throw input_error(at + ": field 'launch': {" + std::string(to_string(*f))
                          + "} is known only inside a Slurm job (a slurm pool's batch script "
                            "reads it on each node)");
  }
  return p;
}

} // namespace

std::vector<pool_spec> read_pools(const YAML::Node& node, const std::string& where) {
  if (!node.IsSequence() || node.size() == 0)
    throw input_error(where + ": pools: expected a non-empty list of pools");
  std::vector<pool_spec> pools;
  std::set<std::string> names;
  for (size_t i = 0; i < node.size(); ++i) {
    const auto at = where + ": pools[" + std::to_string(i) + "]";
    auto p = read_pool(node[i], where, i);
    if (!names.insert(p.name).second)
      throw input_error(at + ": field 'name': '" + p.name + "' names two pools");
    pools.push_back(std::move(p));
  }
  return pools;
}

void refuse_other_framework_args(const std::vector<pool_spec>& pools, launch_field own,
                                 const std::string& where) {
  const auto accepted = own == launch_field::framework_args
                          ? std::string("{framework_args}")
                          : "{" + std::string(to_string(own)) + "} or {framework_args}";
  for (const auto other : {launch_field::megatron_args, launch_field::maxtext_args}) {
    if (other == own)
      continue;
    for (const auto& p : pools)
      if (!p.launch.empty() && launch_template::parse(p.launch).uses(other))
        throw input_error(where + ": pool '" + p.name + "': field 'launch': {" + to_string(other)
                          + "} is another framework's; this job's trials take " + accepted);
  }
}

} // namespace paratune
