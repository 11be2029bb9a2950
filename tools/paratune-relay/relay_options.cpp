#include "tools/paratune-relay/relay_options.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/input_error.hpp"
#include "core/text.hpp"
#include "core/value_range.hpp"

namespace paratune::relay {

namespace {

constexpr value_range trial_range{1, 1 << 20};
constexpr value_range port_range{1, 65535};
constexpr value_range buffer_range{1, 10000000};
constexpr value_range linger_range{0, 600000};
constexpr value_range seq_range_allowed{1, int64_t(1) << 53};
constexpr size_t max_name = 128;

/// "tcp://HOST:PORT" split; throws input_error naming `option` otherwise.
/// `wildcard_port`: a bind may ask for any free port with "*".
std::pair<std::string, std::string> tcp_parts(const std::string& option, const std::string& text,
                                              bool wildcard_port) {
  const std::string scheme = "tcp://";
  const auto colon = text.rfind(':');
  if (text.rfind(scheme, 0) != 0 || colon == std::string::npos || colon <= scheme.size())
    throw input_error(option + ": '" + text + "' is not tcp://HOST:PORT");
  auto host = text.substr(scheme.size(), colon - scheme.size());
  auto port = text.substr(colon + 1);
  if (!(wildcard_port && port == "*"))
    parse_integer(option + " port", port, port_range);
  return {host, port};
}

std::string value_of(const std::vector<std::string>& args, size_t& i) {
  if (i + 1 >= args.size() || args[i + 1] == "--")
    throw input_error(args[i] + ": needs a value");
  return args[++i];
}

std::set<uint64_t> parse_drop_list(const std::string& text) {
  std::set<uint64_t> seqs;
  for (const auto& item : split(text, ','))
    seqs.insert(uint64_t(parse_integer("--drop-seq", item, seq_range_allowed)));
  if (seqs.empty())
    throw input_error("--drop-seq: needs a list of line numbers, e.g. 3,5");
  return seqs;
}

/// One option and its value into `o`; false when `name` is not an option.
bool take_option(const std::string& name, const std::string& value, relay_options& o) {
  if (name == "--bus")
    o.bus = value;
  else if (name == "--session")
    o.session = value;
  else if (name == "--trial")
    o.trial = parse_int_field("--trial", value, trial_range);
  else if (name == "--log")
    o.log = value;
  else if (name == "--follow")
    o.follow = value;
  else if (name == "--fetch-bind")
    o.fetch_bind = value;
  else if (name == "--fetch-host")
    o.fetch_host = value;
  else if (name == "--buffer-lines")
    o.buffer_lines = parse_integer("--buffer-lines", value, buffer_range);
  else if (name == "--linger-ms")
    o.linger_ms = parse_integer("--linger-ms", value, linger_range);
  else if (name == "--await-ms")
    o.await_ms = parse_integer("--await-ms", value, linger_range);
  else if (name == "--drop-seq")
    o.drop_seq = parse_drop_list(value);
  else
    return false;
  return true;
}

void check_complete(const relay_options& o) {
  for (const auto& [name, value] : {std::pair{"--bus", &o.bus}, {"--session", &o.session},
                                    {"--log", &o.log}})
    if (value->empty())
      throw input_error(std::string(name) + ": missing");
  if (o.trial == 0)
    throw input_error("--trial: missing");
  tcp_parts("--bus", o.bus, false);
  if (!o.fetch_bind.empty())
    tcp_parts("--fetch-bind", o.fetch_bind, true);
  if (!is_plain_name(o.session, max_name))
    throw input_error("--session: '" + o.session + "' is not a plain name (letters, digits, _ - .)");
  if (!o.fetch_host.empty() && !is_plain_name(o.fetch_host, max_name))
    throw input_error("--fetch-host: '" + o.fetch_host + "' is not a host name");
  if (o.command.empty() && o.follow.empty())
    throw input_error("--: missing: give the command after -- (or --follow FILE)");
}

} // namespace

relay_options parse_relay_options(const std::vector<std::string>& args) {
  relay_options o;
  size_t i = 0;
  for (; i < args.size() && args[i] != "--"; ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      o.help = true;
      return o;
    }
    if (args[i] == "--version") {
      o.version = true;
      return o;
    }
    const auto& name = args[i];
    if (name.rfind("--", 0) != 0 || !take_option(name, value_of(args, i), o))
      throw input_error(name + ": unknown option (see --help)");
  }
  if (i < args.size())
    o.command.assign(args.begin() + long(i) + 1, args.end());
  check_complete(o);
  return o;
}

namespace {

bool loopback_name(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "[::1]";
}

/// The local address the kernel would send from to reach host:port (a UDP
/// connect sends nothing); empty when it has no route.
std::string source_address_towards(const std::string& host, const std::string& port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || !found)
    return {};
  std::string address;
  const int fd = ::socket(found->ai_family, SOCK_DGRAM, 0);
  sockaddr_storage local{};
  socklen_t size = sizeof local;
  if (fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0
      && ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &size) == 0) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw = local.ss_family == AF_INET6
                        ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
                        : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
    if (inet_ntop(local.ss_family, raw, text, sizeof text))
      address = local.ss_family == AF_INET6 ? "[" + std::string(text) + "]" : text;
  }
  if (fd >= 0)
    ::close(fd);
  freeaddrinfo(found);
  return address;
}

} // namespace

std::string fetch_bind_of(const relay_options& o) {
  if (!o.fetch_bind.empty())
    return o.fetch_bind;
  const auto [host, port] = tcp_parts("--bus", o.bus, false);
  if (loopback_name(host))
    return "tcp://127.0.0.1:*";
  const auto mine = source_address_towards(host, port);
  return "tcp://" + (mine.empty() ? std::string("127.0.0.1") : mine) + ":*";
}

std::string announced_host(const relay_options& o) {
  if (!o.fetch_host.empty())
    return o.fetch_host;
  if (o.fetch_bind.empty()) {
    const auto bind = fetch_bind_of(o);
    return tcp_parts("--fetch-bind", bind, true).first;
  }
  const auto host = tcp_parts("--bus", o.bus, false).first;
  if (loopback_name(host))
    return host;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0 && name[0])
    return name;
  return host;
}

const char* usage() {
  return R"(usage: paratune-relay --bus tcp://HOST:PORT --session SID --trial N --log FILE
                      [options] -- COMMAND [ARGS...]
       paratune-relay ... --follow FILE [-- COMMAND [ARGS...]]

Runs COMMAND (fork and exec, no shell) on a cluster node and relays each line
of its output to paratune's bus on topic relay.SID.N, numbered 1, 2, 3 ...,
then an end message with the last number and COMMAND's exit status, which is
also the relay's. Every line is kept in a bounded buffer, served again on a
ZeroMQ REP socket, and appended to the log file (line N of it is line N).
With --follow it relays the lines appended to FILE instead (COMMAND, when
given, runs beside it and its output goes to the relay's stderr); without a
command it follows FILE until SIGTERM or SIGINT.

  --bus ENDPOINT       the bus's publish endpoint (paratune's {relay})
  --session SID        the tuning session
  --trial N            the trial (1..1048576)
  --log FILE           the log file, e.g. {workdir}/relay.log
  --follow FILE        relay FILE's new lines instead of COMMAND's output
  --fetch-bind EP      where re-sends are served (default: the loopback for a bus
                       on the loopback, else this node's address towards the bus)
  --fetch-host HOST    the host announced for it (default: the bus's when it is
                       the loopback, else this machine's name)
  --buffer-lines N     lines kept for re-sends (1..10000000, default 100000)
  --linger-ms N        re-sends served after the end (0..600000, default 1000)
  --await-ms N         wait this long for paratune's receiver to subscribe before
                       starting COMMAND (0..600000, default 5000): ZeroMQ drops
                       what is published before a subscription arrives; the
                       receiver would fetch those lines again, but need not
  --version            print the version and exit
  --drop-seq N[,M...]  testing: do not publish these lines (they are still
                       buffered and logged), so the receiver sees gaps

Environment: PARATUNE_RELAY_KEY, the trial's key (64 hex digits, put in the
job's environment by paratune): every message is signed with it, and
paratune's relay ingress passes only lines signed with their trial's key. It
is removed from the environment before COMMAND starts. Without it the lines go
out unsigned (said on stderr) and reach paratune through the log file only.

Exit status: COMMAND's; 2 for a bad option or key (one line naming it); 1 when
the bus, the log or the fetch socket cannot be set up.
)";
}

} // namespace paratune::relay
