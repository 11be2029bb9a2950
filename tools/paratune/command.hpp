#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace paratune::cli {

/// Exit status for bad input (a file, a flag, a value): the error names it.
constexpr int exit_bad_input = 2;

/// The action a subcommand runs once its options are parsed; returns the
/// process exit status.
using command_action = std::function<int()>;

/// A `paratune` subcommand. `setup` declares the options on `sub` (binding
/// them to variables it owns) and returns the action.
struct command {
  std::string name;
  std::string help;
  std::function<command_action(CLI::App& sub)> setup;
};

/// Every registered subcommand, in registration order.
std::vector<command>& commands();

/// Registers a subcommand at static-initialization time. Each cmd_*.cpp in
/// tools/paratune/ holds one: `static cli::registrar r{{"name", "help", setup}};`
struct registrar {
  explicit registrar(command c) { commands().push_back(std::move(c)); }
};

} // namespace paratune::cli
