// paratune: finds the parallel configuration of an LLM training job that
// gives the most throughput. Each subcommand lives in its own cmd_*.cpp.

#include <CLI/CLI.hpp>
#include <iostream>
#include <map>
#include <memory>

#include "core/input_error.hpp"
#include "paratune_version.hpp"
#include "tools/paratune/command.hpp"

namespace paratune::cli {

std::vector<command>& commands() {
  static std::vector<command> all;
  return all;
}

} // namespace paratune::cli

int main(int argc, char** argv) {
  using namespace paratune;
  CLI::App app{"paratune: tunes the parallel configuration of LLM training jobs"};
  // --version alone runs no subcommand; CLI11 answers it while parsing.
  app.set_version_flag("--version", std::string("paratune ") + paratune::version);
  app.require_subcommand(1);
  std::map<CLI::App*, cli::command_action> actions;
  for (auto& cmd : cli::commands()) {
    auto* sub = app.add_subcommand(cmd.name, cmd.help);
    actions[sub] = cmd.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) // --help, --version
      return app.exit(e);
    // One line, worded as every other refusal: "error: --gpus: Value 0 not
    // in range 1 to 1048576".
    std::cerr << "error: " << e.what() << "\nRun with --help for more information.\n";
    return cli::exit_bad_input;
  }
  try {
    for (auto* sub : app.get_subcommands())
      return actions.at(sub)();
  } catch (const input_error& e) {
    std::cerr << "error: " << e.what() << '\n';
    return cli::exit_bad_input;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
