#pragma once

#include <string>
#include <vector>

#include "core/reasoner_settings.hpp"

namespace paratune {

enum class log_format { text, json };

/// How `paratune daemon` runs: from its YAML config file, then its command
/// line (which wins). Every endpoint is on the loopback unless
/// `allow_remote` says otherwise.
///
///   state: /var/lib/paratune          # the pool (RocksDB) and trial directories
///   control: tcp://127.0.0.1:7710     # the ROUTER endpoint clients talk to
///   bus: {publish: tcp://127.0.0.1:7711, subscribe: tcp://127.0.0.1:7712}
///   http: 127.0.0.1:7713              # dashboard, /metrics, /health; "off": none
///   log: {format: json, level: info}
///   grace_s: 10                       # how long each group of actors may take to stop
///   sync_writes: true                 # fdatasync every pool write
///   max_sessions: 64                  # running sessions at once; more are refused
///   allow_remote: false
///   curve_key: /etc/paratune/daemon.key  # CURVE on the control endpoint
///   reasoner: {mode: hybrid, base_url: "http://127.0.0.1:8000/v1", model: NAME,
///              api_key_env: OPENAI_API_KEY}  # for jobs that name none
///   secret_env: [HF_TOKEN]            # more secrets of this environment
struct daemon_config {
  std::string state_dir = "paratune-state";
  std::string control = "tcp://127.0.0.1:7710";
  std::string bus_publish = "tcp://127.0.0.1:7711";
  std::string bus_subscribe = "tcp://127.0.0.1:7712";
  std::string http = "127.0.0.1:7713"; ///< HOST:PORT, or empty for none
  log_format log = log_format::text;
  std::string log_level = "info";
  int grace_s = 10;
  bool sync_writes = true;
  int max_sessions = 64;
  bool allow_remote = false;
  /// The server's key file (paratune keygen): the control endpoint then
  /// speaks CURVE only. Required for a control endpoint beyond the loopback.
  std::string curve_key;
  /// The reasoners of a submitted job that has no `reasoner:` of its own
  /// (the same field as a job's, `agents:` included). Builtin by default.
  agent_reasoners reasoner;
  /// Variables of the daemon's environment that no trial may see and whose
  /// values are redacted from trial output, the pool and the log, besides
  /// SLURM_JWT and every api_key_env (core/secret_env.hpp).
  std::vector<std::string> secret_env;
};

/// Reads a config file; throws input_error naming the file and the key.
daemon_config load_daemon_config(const std::string& path);

/// Checks the whole config: endpoints well formed (tcp://HOST:PORT, a port
/// of * for any, or ipc://PATH), on the loopback unless allow_remote, the
/// HTTP address HOST:PORT, a known log level. Throws input_error.
void check_daemon_config(const daemon_config& c);

/// The host of "tcp://HOST:PORT" or "HOST:PORT"; empty when it has none.
std::string endpoint_host(const std::string& endpoint);
bool is_loopback_host(const std::string& host);

/// Where a client finds the daemon: `flag` when given, else the
/// PARATUNE_DAEMON environment variable, else the default control endpoint.
std::string daemon_endpoint(const std::string& flag);

} // namespace paratune
