// `paratune parse-log FILE [--json]`: reads a Megatron-LM training log and
// prints what the tuner sees in it (iterations, memory, errors, arguments).

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "adapters/megatron/megatron_log_json.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"
#include "adapters/megatron/megatron_log_summary.hpp"
#include "tools/paratune/command.hpp"

namespace paratune::cli {

namespace {

// "-" reads standard input, so that a running job can be piped in.
megatron_log parse_stdin() {
  megatron_log_parser parser;
  std::string buf(1 << 16, '\0');
  const auto size = static_cast<std::streamsize>(buf.size());
  while (std::cin.read(buf.data(), size) || std::cin.gcount() > 0)
    parser.feed(std::string_view(buf.data(), static_cast<std::size_t>(std::cin.gcount())));
  parser.finish();
  return parser.log();
}

command_action setup(CLI::App& sub) {
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  sub.add_option("FILE", *file, "Megatron-LM log file (stdout/stderr of a run); - for stdin")
    ->required();
  sub.add_flag("--json", *json, "print the parsed log as JSON");
  return [file, json] {
    // An unreadable file throws input_error naming it: main prints it and exits 2.
    const megatron_log log = *file == "-" ? parse_stdin() : parse_megatron_log_file(*file);
    if (*json)
      std::cout << to_json(log).dump(2) << '\n';
    else
      write_summary(std::cout, log);
    return 0;
  };
}

} // namespace

static registrar r{
  {"parse-log", "Parse a Megatron-LM training log: iterations, memory, errors, arguments", setup}};

} // namespace paratune::cli
