// `paratune parse-log FILE [--json] [--cluster NAME [--gpus N]]`: reads a
// Megatron-LM or MaxText training log (the format is detected) and prints
// what the tuner sees in it (iterations, memory, errors, arguments; for
// MaxText each step's phase and the scored means); told the cluster, it
// also checks the reported TFLOP/s per GPU against the device
// (core/diagnosis/plausibility.hpp), and a MaxText step beyond the device's
// peak is not scored.

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/config/catalog.hpp"
#include "adapters/maxtext/training_log_format.hpp"
#include "adapters/maxtext/maxtext_log_json.hpp"
#include "adapters/maxtext/maxtext_log_parser.hpp"
#include "adapters/maxtext/maxtext_log_summary.hpp"
#include "adapters/maxtext/step_scoring.hpp"
#include "adapters/diagnosis/evidence_readers.hpp"
#include "adapters/megatron/log_chunks.hpp"
#include "adapters/megatron/megatron_log_json.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"
#include "adapters/megatron/megatron_log_summary.hpp"
#include "core/diagnosis/plausibility.hpp"
#include "core/input_error.hpp"
#include "core/value_range.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

// Both readers read the same bytes, "-" being standard input (so that a
// running job can be piped in); the format is decided after.
struct both_logs {
  megatron_log megatron;
  maxtext_log maxtext;
};

both_logs parse_both(const std::string& file) {
  megatron_log_parser megatron;
  maxtext_log_parser maxtext;
  read_log_chunks(file, "log", [&](std::string_view chunk) {
    megatron.feed(chunk);
    maxtext.feed(chunk);
  });
  megatron.finish();
  maxtext.finish();
  return {megatron.log(), maxtext.log()};
}

// The precision the log ran in, for the peak: fp8 when its argument dump
// names an fp8 format, else the 16-bit peak (fp16 and bf16 share it).
precision log_precision(const megatron_log& log) {
  const auto fp8 = log.args.find("fp8");
  return fp8 != log.args.end() && fp8->second != "None" ? precision::fp8 : precision::bf16;
}

// The Analyzer's plausibility check on the log's median TFLOP/s per GPU,
// on `gpus` devices (else the log's world size, else one node) of `cluster`.
std::vector<std::string> plausibility_warnings(const megatron_log& log, const std::string& file,
                                               const cluster_spec& cluster, int gpus) {
  auto e = evidence_from_megatron(log, file);
  e.kpis.peak_tflops_per_device = cluster.device.peak_tflops(log_precision(log));
  e.kpis.devices = gpus > 0                                   ? gpus
                   : log.layout && log.layout->world_size ? *log.layout->world_size
                                                              : cluster.devices_per_node;
  const auto finding = check_throughput(e.kpis, cluster.device.name);
  if (finding.plausible)
    return {};
  return {finding.warning};
}

command_action setup_parse_log(CLI::App& sub) {
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto cluster = std::make_shared<std::string>();
  auto gpus = std::make_shared<int>(0);
  sub.add_option("FILE", *file,
                 "Megatron-LM or MaxText log file (stdout/stderr of a run); - for stdin")
    ->required();
  sub.add_flag("--json", *json, "print the parsed log as JSON");
  sub.add_option("--cluster", *cluster,
                 "the cluster the log ran on (catalog name or YAML): check its TFLOP/s per GPU "
                 "against the device");
  sub.add_option("--gpus", *gpus, "GPUs the log ran on (default: its world size, else one node)")
    ->check(CLI::Range(int64_t(1), max_devices))
    ->needs(sub.get_option("--cluster"));
  return [file, json, cluster, gpus] {
    // An unreadable file or an unknown cluster throws input_error naming
    // it: main prints it and exits 2.
    const auto device = cluster->empty() ? std::optional<cluster_spec>{} : load_cluster(*cluster);
    auto logs = parse_both(*file);
    const auto format = detect_training_log_format(logs.megatron, logs.maxtext);
    if (format == training_log_format::unknown)
      throw input_error((*file == "-" ? std::string("standard input") : *file)
                        + ": no Megatron-LM line found (" + std::to_string(logs.megatron.lines)
                        + " lines read), nor a MaxText one");
    if (format == training_log_format::maxtext) {
      auto& log = logs.maxtext;
      // Told the device, a step beyond its peak was timed before it ran.
      if (device)
        score_steps(log.steps, device->device.peak_tflops(precision::bf16));
      if (*json)
        print_json(to_json(log));
      else
        write_summary(std::cout, log);
      return 0;
    }
    const megatron_log& log = logs.megatron;
    const auto warnings =
        device ? plausibility_warnings(log, *file, *device, *gpus) : std::vector<std::string>{};
    if (*json) {
      auto j = to_json(log);
      j["format"] = "megatron";
      if (device)
        j["warnings"] = warnings;
      print_json(j);
    } else {
      write_summary(std::cout, log);
      for (const auto& w : warnings)
        std::cout << "warning: " << w << '\n';
    }
    return 0;
  };
}

} // namespace

static registrar parse_log_command{
  {"parse-log", "Parse a Megatron-LM or MaxText training log: iterations, memory, errors, arguments", setup_parse_log}};

} // namespace paratune::cli
