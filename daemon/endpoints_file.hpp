#pragma once

#include <string>

namespace paratune {

/// Where a running daemon was reached, for whoever shares its state
/// directory: its owner's scripts and tools. With the default free ports
/// (port *) only the daemon knows its ports until it says so.
struct daemon_endpoints {
  std::string control;
  std::string bus_subscribe;
  std::string relay_ingress; ///< as handed to trials
  std::string http;          ///< HOST:PORT; empty when the dashboard is off
  long pid = 0;
};

/// STATE/endpoints.json.
std::string endpoints_file_of(const std::string& state_dir);

/// Writes them as one JSON object to `path`, mode 0600 (a new file, then
/// renamed over the old one: a reader never sees half of it). It stays
/// after the daemon stops (pid says which one wrote it). Throws
/// std::runtime_error naming the path.
void write_endpoints_file(const std::string& path, const daemon_endpoints& e);

/// The relay ingress to try first when `configured` asks for a free port
/// (tcp://HOST:*): HOST with the port the last daemon of this state
/// directory kept in `path`, so that the relays of trials that run across a
/// restart stay heard. Empty when there is none to try.
std::string relay_ingress_of_last_run(const std::string& path, const std::string& configured);

} // namespace paratune
