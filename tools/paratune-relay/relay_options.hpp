#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace paratune::relay {

/// paratune-relay's command line (relay_options.cpp's usage() says it in words).
struct relay_options {
  std::string bus;                 ///< the bus's publish (XSUB) endpoint, tcp://HOST:PORT
  std::string session;
  int trial = 0;
  std::string log;                 ///< the log file every numbered line is appended to
  std::string follow;              ///< a file to relay instead of the command's output
  std::string fetch_bind;          ///< where re-send requests are served (default: fetch_bind_of)
  std::string fetch_host;          ///< the host announced for it (default: see announced_host)
  int64_t buffer_lines = 100000;   ///< lines kept for re-sends
  int64_t linger_ms = 1000;        ///< re-sends served after the end message
  int64_t await_ms = 5000;         ///< how long to wait for a receiver before starting
  std::set<uint64_t> drop_seq;     ///< testing: numbers not published (still buffered and logged)
  std::vector<std::string> command;  ///< the argv after "--"
  bool help = false;
  bool version = false; ///< --version: print it and exit
};

/// Parses argv (without the program name). Throws input_error whose text
/// names the option: a missing or unknown option, a value out of its range,
/// an endpoint that is not tcp://HOST:PORT with PORT 1..65535 (or * where
/// a bind allows it), no command after "--" and no --follow.
relay_options parse_relay_options(const std::vector<std::string>& args);

/// The usage text for --help.
const char* usage();

/// The host a receiver reaches the fetch socket at: --fetch-host, else the
/// address fetch_bind_of chose, else (a --fetch-bind on every interface)
/// the bus's own host when it is the loopback, else this machine's name.
std::string announced_host(const relay_options& o);

/// Where the fetch socket listens: --fetch-bind, else the loopback for a bus
/// on the loopback, else the address this node reaches the bus from (the
/// kernel's route to it), never every interface: the re-sends are for the
/// bus's host alone.
std::string fetch_bind_of(const relay_options& o);

} // namespace paratune::relay
