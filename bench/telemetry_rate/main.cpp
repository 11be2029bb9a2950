// bench_telemetry_rate: telemetry between two processes over TCP loopback,
// the pool keeping up and no record lost (docs/benchmarks.md).
//
//   bench_telemetry_rate [--records N] [--sessions S] [--trials T] [--batch B]
//                        [--hwm H] [--label NAME] [--dir DIR]
//
// runs the producer, which starts the subscriber as `--role subscribe`.

#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "bench/telemetry_rate/bench_options.hpp"
#include "bench/telemetry_rate/producer_role.hpp"
#include "bench/telemetry_rate/subscriber_role.hpp"

int main(int argc, char** argv) {
  using paratune::bench::bench_role;
  paratune::bench::bench_options opts;
  CLI::App app{"telemetry between processes over TCP loopback: rate, gaps, recovery"};
  std::map<std::string, bench_role> roles{{"produce", bench_role::produce},
                                          {"subscribe", bench_role::subscribe}};
  app.add_option("--role", opts.role, "produce (default), or subscribe (started by the producer)")
    ->transform(CLI::CheckedTransformer(roles, CLI::ignore_case));
  // The subscriber keeps 4 bytes per record to check each one.
  app.add_option("--records", opts.records, "telemetry records written")
    ->check(CLI::Range(uint64_t(1), uint64_t(100000000)));
  app.add_option("--sessions", opts.sessions, "sessions")->check(CLI::Range(1, 1000));
  app.add_option("--trials", opts.trials, "trials per session")->check(CLI::Range(1, 1000));
  app.add_option("--batch", opts.batch, "records per append_batch")
    ->check(CLI::Range(1, 100000));
  app.add_option("--hwm", opts.hwm, "ZMQ_SNDHWM and ZMQ_RCVHWM (0: the bus's default)")
    ->check(CLI::Range(0, 10000000));
  app.add_option("--label", opts.label, "the run's name in its result line");
  app.add_option("--dir", opts.dir,
                 "the pool's directory (kept); a fresh temporary one by default");
  app.add_option("--bus", opts.bus, "subscribe: the proxy's subscribe endpoint");
  app.add_option("--control", opts.control, "subscribe: the producer's control endpoint");
  app.add_option("--timeout", opts.timeout_s, "seconds before the subscriber gives up")
    ->check(CLI::Range(1, 3600));
  CLI11_PARSE(app, argc, argv);
  try {
    if (opts.role == bench_role::subscribe) {
      if (opts.bus.empty() || opts.control.empty()) {
        std::fprintf(stderr, "error: --role subscribe needs --bus and --control\n");
        return 2;
      }
      return paratune::bench::run_subscriber(opts);
    }
    return paratune::bench::run_producer(opts);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
