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
///   state: /var/lib/paratune          # the pool and trial directories (default ~/.paratune)
///   control: ipc:///var/lib/paratune/control.sock  # default: STATE/control.sock
///   control_users: [alice, 1002]      # others who may use the Unix socket
///   authorized_keys: /etc/paratune/clients  # client .pub files: TCP control
///   bus: {publish: ipc://STATE/bus-publish.sock, subscribe: ipc://STATE/bus-subscribe.sock}
///   relay_ingress: tcp://127.0.0.1:7711   # where trials' relays publish their lines (default: a free port)
///   http: 127.0.0.1:7713              # dashboard, /metrics, /health (default: a free port); "off": none
///   log: {format: json, level: info}
///   grace_s: 10                       # how long each group of actors may take to stop
///   sync_writes: true                 # fdatasync every pool write
///   max_sessions: 64                  # running sessions at once; more are refused
///   allow_remote: false
///   curve_key: /etc/paratune/daemon.key  # CURVE on a TCP control endpoint
///   http_token_file: /etc/paratune/http.token  # needed for http beyond the loopback
///   reasoner: {mode: hybrid, base_url: "http://127.0.0.1:8000/v1", model: NAME,
///              api_key_env: OPENAI_API_KEY}  # for jobs that name none
///   secret_env: [HF_TOKEN]            # more secrets of this environment
/// The state directory a daemon started without `state:` keeps, and the
/// one a client looks in for the daemon without --daemon or
/// $PARATUNE_DAEMON: $HOME/.paratune (the user database's home when HOME
/// is unset). Each user's own, so that the defaults of two users' daemons
/// on one host never meet.
std::string default_state_dir();

struct daemon_config {
  std::string state_dir = default_state_dir();
  /// The control endpoint; empty for the Unix socket STATE/control.sock
  /// (control_endpoint_of). A tcp:// endpoint needs curve_key and
  /// authorized_keys: over TCP only listed CURVE clients are heard.
  std::string control;
  /// Users besides the daemon's own who may use the Unix socket (names or
  /// uids); the socket is then open to all, and the peer's uid decides.
  std::vector<std::string> control_users;
  /// The folder of client public keys (paratune keygen --client) heard on
  /// a TCP control endpoint.
  std::string authorized_keys;
  /// The agents' own bus; empty for Unix sockets in the state directory,
  /// which no other user can reach (bus_publish_of, bus_subscribe_of).
  std::string bus_publish;
  std::string bus_subscribe;
  /// The only bus endpoint for cluster nodes: relay lines in, nothing else
  /// (daemon/relay_ingress.hpp). A port of * takes a free one, which the
  /// daemon prints, keeps in STATE/endpoints.json and hands to each trial:
  /// two users' daemons on one host never want the same port.
  std::string relay_ingress = "tcp://127.0.0.1:*";
  /// HOST:PORT, or empty for none; a port of * takes a free one, as above.
  std::string http = "127.0.0.1:*";
  log_format log = log_format::text;
  std::string log_level = "info";
  int grace_s = 10;
  bool sync_writes = true;
  int max_sessions = 64;
  bool allow_remote = false;
  /// The server's key file (paratune keygen): the control endpoint then
  /// speaks CURVE only. Required for a TCP control endpoint.
  std::string curve_key;
  /// A file (mode 0600) holding the token the dashboard asks for
  /// (Authorization: Bearer TOKEN, or ?token=TOKEN); required when http is
  /// beyond the loopback.
  std::string http_token_file;
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

/// Where the control endpoint is: `control`, or ipc://STATE/control.sock.
std::string control_endpoint_of(const daemon_config& c);
/// The bus's two sides: as configured, or ipc://STATE/bus-publish.sock and
/// ipc://STATE/bus-subscribe.sock.
std::string bus_publish_of(const daemon_config& c);
std::string bus_subscribe_of(const daemon_config& c);

/// The uids `control_users` names (a name through the user database, or a
/// number). Throws input_error naming an unknown user.
std::vector<uint32_t> control_user_ids(const daemon_config& c);

/// The host of "tcp://HOST:PORT" or "HOST:PORT"; empty when it has none.
std::string endpoint_host(const std::string& endpoint);
bool is_loopback_host(const std::string& host);

/// Where a client finds the daemon: `flag` when given, else the
/// PARATUNE_DAEMON environment variable, else the default daemon's Unix
/// socket (ipc://$HOME/.paratune/control.sock, in default_state_dir()).
std::string daemon_endpoint(const std::string& flag);

} // namespace paratune
