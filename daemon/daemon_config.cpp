#include "daemon/daemon_config.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>

#include <pwd.h>
#include <unistd.h>

#include "adapters/config/env_fields.hpp"
#include "adapters/config/reasoner_loader.hpp"
#include "adapters/config/yaml_fields.hpp"
#include "core/input_error.hpp"
#include "core/value_range.hpp"

namespace paratune {

namespace {

/// sockaddr_un's sun_path holds 108 bytes with the terminating NUL.
constexpr size_t max_socket_path = 107;

constexpr std::string_view top_keys[] = {
  "state",        "control",   "control_users",   "authorized_keys", "bus",
  "http",         "log",       "grace_s",         "sync_writes",     "max_sessions",
  "allow_remote", "curve_key", "http_token_file", "relay_ingress",   "reasoner",
  "secret_env"};
constexpr std::string_view bus_keys[] = {"publish", "subscribe"};
constexpr std::string_view log_keys[] = {"format", "level"};

log_format parse_log_format(const std::string& word, const std::string& where) {
  if (word == "text")
    return log_format::text;
  if (word == "json")
    return log_format::json;
  throw input_error(where + ": log.format must be text or json, not '" + word + "'");
}

/// "HOST:PORT" with PORT in 1..65535 or "*"; the host may be [v6].
void check_host_port(const std::string& what, const std::string& hp) {
  const auto colon = hp.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == hp.size())
    throw input_error(what + ": '" + hp + "' is not HOST:PORT");
  const auto port = hp.substr(colon + 1);
  if (port != "*")
    parse_integer(what + " port", port, {1, 65535});
}

void check_endpoint(const std::string& what, const std::string& ep, bool allow_remote) {
  if (ep.rfind("ipc://", 0) == 0 && ep.size() > 6) {
    if (ep.size() - 6 > max_socket_path)
      throw input_error(what + ": the socket path '" + ep.substr(6) + "' is "
                        + std::to_string(ep.size() - 6) + " bytes, more than a Unix socket "
                        "holds (" + std::to_string(max_socket_path) + "); choose a shorter "
                        "state directory");
    return;
  }
  if (ep.rfind("tcp://", 0) != 0)
    throw input_error(what + ": '" + ep + "' is not tcp://HOST:PORT or ipc://PATH");
  check_host_port(what, ep.substr(6));
  if (!allow_remote && !is_loopback_host(endpoint_host(ep)))
    throw input_error(what + ": '" + ep + "' is not on the loopback; set allow_remote: true "
                             "to listen beyond this machine");
}

} // namespace

std::string endpoint_host(const std::string& endpoint) {
  auto hp = endpoint.rfind("tcp://", 0) == 0 ? endpoint.substr(6) : endpoint;
  const auto colon = hp.rfind(':');
  if (colon == std::string::npos)
    return {};
  hp = hp.substr(0, colon);
  if (hp.size() >= 2 && hp.front() == '[' && hp.back() == ']')
    hp = hp.substr(1, hp.size() - 2);
  return hp;
}

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

std::string default_state_dir() {
  const char* home = std::getenv("HOME");
  if (!home || !*home) {
    const auto* pw = ::getpwuid(::geteuid());
    home = pw ? pw->pw_dir : nullptr;
  }
  // No home at all (a bare container): the working directory's, as before.
  return home && *home ? std::string(home) + "/.paratune" : std::string("paratune-state");
}

std::string control_endpoint_of(const daemon_config& c) {
  return c.control.empty() ? "ipc://" + c.state_dir + "/control.sock" : c.control;
}

std::string bus_publish_of(const daemon_config& c) {
  return c.bus_publish.empty() ? "ipc://" + c.state_dir + "/bus-publish.sock" : c.bus_publish;
}

std::string bus_subscribe_of(const daemon_config& c) {
  return c.bus_subscribe.empty() ? "ipc://" + c.state_dir + "/bus-subscribe.sock"
                                 : c.bus_subscribe;
}

std::vector<uint32_t> control_user_ids(const daemon_config& c) {
  std::vector<uint32_t> ids;
  for (const auto& user : c.control_users) {
    if (!user.empty() && user.find_first_not_of("0123456789") == std::string::npos) {
      ids.push_back(uint32_t(parse_integer("control_users", user, {0, 4294967294LL})));
      continue;
    }
    const auto* pw = ::getpwnam(user.c_str());
    if (!pw)
      throw input_error("control_users: no user '" + user + "' on this host");
    ids.push_back(pw->pw_uid);
  }
  return ids;
}

void check_daemon_config(const daemon_config& c) {
  if (c.state_dir.empty())
    throw input_error("state: the state directory must be given");
  const auto control = control_endpoint_of(c);
  check_endpoint("control", control, c.allow_remote);
  if (control.rfind("tcp://", 0) == 0 && (c.curve_key.empty() || c.authorized_keys.empty()))
    throw input_error("control: '" + control + "' is TCP, which needs curve_key and "
                      "authorized_keys: over TCP only CURVE clients whose public key is listed "
                      "are heard (paratune keygen; paratune keygen --client for each client)");
  (void)control_user_ids(c);
  check_endpoint("bus.publish", bus_publish_of(c), c.allow_remote);
  check_endpoint("bus.subscribe", bus_subscribe_of(c), c.allow_remote);
  check_endpoint("relay_ingress", c.relay_ingress, c.allow_remote);
  if (!c.http.empty()) {
    check_host_port("http", c.http);
    if (!c.allow_remote && !is_loopback_host(endpoint_host(c.http)))
      throw input_error("http: '" + c.http + "' is not on the loopback; set allow_remote: true "
                                             "to serve beyond this machine");
    if (!is_loopback_host(endpoint_host(c.http)) && c.http_token_file.empty())
      throw input_error("http: '" + c.http + "' is beyond the loopback without "
                        "http_token_file: the dashboard would show every session to anyone "
                        "who can reach it");
  }
  static const std::set<std::string> levels = {"trace", "debug", "info", "warn", "error"};
  if (!levels.count(c.log_level))
    throw input_error("log.level must be one of trace, debug, info, warn, error, not '"
                      + c.log_level + "'");
  // A model's key must be there when the daemon starts, not discovered
  // missing at a session's first analysis.
  for (const auto agent : all_reasoning_agents) {
    const auto r = c.reasoner.of(agent);
    if (r.mode != reasoner_mode::builtin && !r.api_key_env.empty()) {
      const char* key = std::getenv(r.api_key_env.c_str());
      if (!key || !*key)
        throw input_error(std::string("reasoner: ") + to_string(agent) + ": environment "
                          "variable " + r.api_key_env + " (api_key_env) is not set");
    }
  }
  check_range("grace_s", c.grace_s, {1, 3600});
  check_range("max_sessions", c.max_sessions, {1, 100000});
}

daemon_config load_daemon_config(const std::string& path) {
  namespace yf = yaml_fields;
  const auto root = yf::load_file(path);
  daemon_config c;
  try {
    yf::refuse_unknown_keys(root, top_keys, path);
    c.state_dir = yf::optional<std::string>(root, "state", path, c.state_dir);
    c.control = yf::optional<std::string>(root, "control", path, c.control);
    if (const auto users = root["control_users"]) {
      if (!users.IsSequence())
        throw input_error(path + ": control_users must be a list of user names or uids");
      for (const auto& u : users)
        c.control_users.push_back(u.as<std::string>());
    }
    c.authorized_keys =
      yf::optional<std::string>(root, "authorized_keys", path, c.authorized_keys);
    c.http_token_file =
      yf::optional<std::string>(root, "http_token_file", path, c.http_token_file);
    if (const auto bus = root["bus"]) {
      yf::refuse_unknown_keys(bus, bus_keys, path, "bus");
      c.bus_publish = yf::optional<std::string>(bus, "publish", path + ": bus", c.bus_publish);
      c.bus_subscribe =
        yf::optional<std::string>(bus, "subscribe", path + ": bus", c.bus_subscribe);
    }
    c.relay_ingress = yf::optional<std::string>(root, "relay_ingress", path, c.relay_ingress);
    c.http = yf::optional<std::string>(root, "http", path, c.http);
    if (c.http == "off")
      c.http.clear();
    if (const auto log = root["log"]) {
      yf::refuse_unknown_keys(log, log_keys, path, "log");
      c.log = parse_log_format(yf::optional<std::string>(log, "format", path, "text"), path);
      c.log_level = yf::optional<std::string>(log, "level", path + ": log", c.log_level);
    }
    c.grace_s = yf::optional_int(root, "grace_s", path, {1, 3600}, c.grace_s);
    c.sync_writes = yf::optional<bool>(root, "sync_writes", path, c.sync_writes);
    c.max_sessions = yf::optional_int(root, "max_sessions", path, {1, 100000}, c.max_sessions);
    c.allow_remote = yf::optional<bool>(root, "allow_remote", path, c.allow_remote);
    c.curve_key = yf::optional<std::string>(root, "curve_key", path, c.curve_key);
    if (root["reasoner"])
      c.reasoner = read_reasoners(root["reasoner"], path);
    if (root["secret_env"])
      c.secret_env = read_secret_env_field(root["secret_env"], path);
  } catch (const YAML::Exception& e) {
    throw input_error(path + ": " + e.msg);
  }
  return c;
}

std::string daemon_endpoint(const std::string& flag) {
  if (!flag.empty())
    return flag;
  if (const char* env = std::getenv("PARATUNE_DAEMON"); env && *env)
    return env;
  return control_endpoint_of(daemon_config{});
}

} // namespace paratune
