// bench_tpu_tuning_quality: how well paratune tunes a TPU mesh, against
// Optuna's TPE (the GPU bench's Python peer, over the same trial
// protocol), a grid ranked by the mesh planner, random search and one
// change at a time, at equal trial budgets, on ASAP's three scenarios
// (tests/fixtures/asap/*/experiment.yaml) and on held-out variants of them
// (bench/tpu_scenarios/held-out/*.yaml: other slices, models and batches,
// written after every constant of the mesh model and the proposal logic
// was set, and never tuned on). Every trial runs through paratune-tpu-sim's
// code in process; paratune's decisions are the TPU session's (see
// tpu_tuning_quality/tpu_strategies.hpp). Scores are shares of the best
// true throughput over the planner's whole mesh space. Prints Markdown
// (docs/benchmarks.md, "TPU tuning quality (issue 26)").
//
//   bench_tpu_tuning_quality [--seeds N] [--reality simulated|perturbed]
//                            [--peer-python PATH] [--strategies a,b] [--trace]
//                            [EXPERIMENT.yaml ...]
//
// A seed is the simulated cluster's seed: it draws the hidden truth's
// compute, HBM and collective factors, so each seed is another cluster.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include <CLI/CLI.hpp>

#include "adapters/diagnosis/experiment_loader.hpp"
#include "bench/tpu_tuning_quality/tpu_strategies.hpp"
#include "bench/tuning_quality/metrics.hpp"
#include "core/input_error.hpp"
#include "core/text.hpp"

using namespace paratune;
using namespace paratune::bench;

namespace {

struct tpu_options {
  int seeds = 5;
  tpu_reality reality = tpu_reality::simulated;
  std::string peer_python = "/usr/bin/python3";
  bool trace = false;
  std::vector<std::string> only;
  std::vector<std::string> files;
};

// Returns nullopt when CLI11 has handled the command line (--help, an error).
std::optional<tpu_options> parse_tpu_options(int argc, char** argv, int& exit_code) {
  tpu_options o;
  std::string reality = "simulated", strategies;
  CLI::App app{"bench_tpu_tuning_quality: TPU mesh tuning against its peers"};
  app.add_option("--seeds", o.seeds, "simulated clusters (hidden truths) per scenario")
      ->check(CLI::Range(1, 1000));
  app.add_option("--reality", reality, "simulated or perturbed")
      ->check(CLI::IsMember({"simulated", "perturbed"}));
  app.add_option("--peer-python", o.peer_python, "the Python that runs optuna_peer.py");
  app.add_option("--strategies", strategies, "only these rows, comma-separated");
  app.add_flag("--trace", o.trace, "every trial of every run, on stderr");
  app.add_option("experiments", o.files, "experiment files instead of the default scenarios");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    exit_code = app.exit(e);
    return std::nullopt;
  }
  o.reality = *parse_tpu_reality(reality);
  if (!strategies.empty())
    o.only = split(strategies, ',');
  return o;
}

// ASAP's three experiments, then the held-out variants, unless files are given.
std::vector<tpu_scenario> load_tpu_scenarios(const tpu_options& o) {
  std::vector<std::pair<std::string, std::string>> files;  // path, group
  if (!o.files.empty()) {
    for (const auto& f : o.files)
      files.emplace_back(f, "given");
  } else {
    for (const char* d : {"v5p-512-compute", "v6e-16-hbm", "v5e-256-comm"})
      files.emplace_back(std::string("tests/fixtures/asap/") + d + "/experiment.yaml", "asap");
    std::vector<std::string> held;
    for (const auto& e : std::filesystem::directory_iterator("bench/tpu_scenarios/held-out"))
      if (e.path().extension() == ".yaml")
        held.push_back(e.path().string());
    std::sort(held.begin(), held.end());
    for (const auto& f : held)
      files.emplace_back(f, "held-out");
  }
  std::vector<tpu_scenario> out;
  for (const auto& [path, group] : files) {
    auto exp = load_experiment(path);
    out.push_back(make_tpu_scenario(exp.name, group, exp));
  }
  return out;
}

using tpu_strategy_fn = std::function<tpu_trial_log(const tpu_runner&, int)>;

struct tpu_strategy {
  const char* name;
  tpu_strategy_fn run;
};

int peer_exhausted = 0;

std::vector<tpu_strategy> tpu_strategies_of(const tpu_options& o,
                                            const std::filesystem::path& profile_dir) {
  auto peer = optuna_peer(".");
  peer.command[0] = o.peer_python;
  std::vector<tpu_strategy> all{
      {"paratune",
       [profile_dir](const tpu_runner& r, int b) { return run_tpu_paratune(r, b, profile_dir); }},
      {"optuna-tpe",
       [peer](const tpu_runner& r, int b) {
         auto run = run_tpu_peer(r, b, r.seed() * 7919 + hash_name(r.scenario().name) % 1000,
                                 peer);
         if (!run.end.error.empty())
           throw std::runtime_error("optuna-tpe on " + r.scenario().name + ": " + run.end.error);
         peer_exhausted += run.end.exhausted;
         return run.log;
       }},
      {"model-grid", [](const tpu_runner& r, int b) { return run_tpu_model_grid(r, b); }},
      {"random",
       [](const tpu_runner& r, int b) {
         return run_tpu_random(r, b, r.seed() * 7919 + hash_name(r.scenario().name) % 1000);
       }},
      {"one-change", [](const tpu_runner& r, int b) { return run_tpu_one_change(r, b); }}};
  if (o.only.empty())
    return all;
  std::vector<tpu_strategy> picked;
  for (const auto& name : o.only) {
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const tpu_strategy& s) { return name == s.name; });
    if (it == all.end())
      throw input_error("--strategies: '" + name
                        + "' is not paratune, optuna-tpe, model-grid, random or one-change");
    picked.push_back(*it);
  }
  return picked;
}

const int tpu_budgets[] = {3, 5, 10, 20};

struct tpu_results {
  // [group][strategy][budget]; group "all" holds every run
  std::map<std::string, std::map<std::string, std::map<int, summary>>> by_group;
  // [scenario][strategy][budget]
  std::map<std::string, std::map<std::string, std::map<int, summary>>> by_scenario;
};

void trace_run(const tpu_scenario& s, const char* strategy, std::uint64_t seed,
               const tpu_trial_log& log, double optimum) {
  std::fprintf(stderr, "%s, %s, seed %llu (optimum %.1f TFLOP/s/chip):\n", s.name.c_str(),
               strategy, static_cast<unsigned long long>(seed), optimum);
  for (std::size_t i = 0; i < log.size(); ++i) {
    const auto& r = log[i].record;
    std::fprintf(stderr, "  %2zu %-9s measured %6.1f true %6.1f (%5.1f%%)  %s\n", i + 1,
                 to_string(r.outcome.status), r.outcome.tflops_per_gpu, r.true_tflops,
                 100 * r.true_tflops / optimum, to_string(log[i].mesh).c_str());
  }
}

void print_optima(const std::vector<tpu_scenario>& all, const tpu_options& o) {
  std::printf("### Scenarios (%s reality; the optimum of seed 1)\n\n", to_string(o.reality));
  std::printf("| scenario | group | slice | starting mesh | planner meshes | that start | "
              "optimum (seed 1) | TFLOP/s per chip | starting mesh's share |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& s : all) {
    const tpu_runner r(s, o.reality, 1);
    const auto [best, mesh] = r.optimum();
    const auto start = r.run(s.exp.mesh);
    std::printf("| %s | %s | %s x%d | %s | %d | %zu | %s | %.1f | %.1f%% |\n", s.name.c_str(),
                s.group.c_str(), s.exp.cluster.name.c_str(), s.exp.slice.chips(),
                to_string(s.exp.mesh).c_str(), s.planner_meshes, s.space.size(),
                to_string(mesh).c_str(), best, 100 * start.record.true_tflops / best);
  }
  std::printf("\n");
}

void print_table(const std::string& title, const std::map<std::string, std::map<int, summary>>& by,
                 const std::vector<tpu_strategy>& strategies) {
  std::printf("### %s\n\n", title.c_str());
  std::printf("| strategy | share at 3 | at 5 | at 10 | at 20 | worst run at 5 | "
              "runs reaching 99%% (5 / 10 / 20) | failed trials (20) | chip-hours per run (20) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& st : strategies) {
    const auto& b = by.at(st.name);
    std::printf("| %s | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.1f%% | %d / %d / %d of %d | %.1f%% | "
                "%.1f |\n",
                st.name, 100 * b.at(3).mean_share(), 100 * b.at(5).mean_share(),
                100 * b.at(10).mean_share(), 100 * b.at(20).mean_share(),
                100 * b.at(5).min_share, b.at(5).reached_99, b.at(10).reached_99,
                b.at(20).reached_99, b.at(20).runs, 100 * b.at(20).failed_rate(),
                b.at(20).mean_gpu_hours());
  }
  std::printf("\n");
}

void print_per_scenario(const tpu_results& r, const std::vector<tpu_strategy>& strategies) {
  std::printf("### Mean share of the optimum per scenario at 5 trials (10 in brackets)\n\n");
  std::printf("| scenario |");
  for (const auto& st : strategies)
    std::printf(" %s |", st.name);
  std::printf("\n|---|");
  for (std::size_t i = 0; i < strategies.size(); ++i)
    std::printf("---|");
  std::printf("\n");
  for (const auto& [name, by] : r.by_scenario) {
    std::printf("| %s |", name.c_str());
    for (const auto& st : strategies)
      std::printf(" %.1f%% (%.1f%%) |", 100 * by.at(st.name).at(5).mean_share(),
                  100 * by.at(st.name).at(10).mean_share());
    std::printf("\n");
  }
  std::printf("\n");
}

} // namespace

int main(int argc, char** argv) {
  try {
    int exit_code = 0;
    const auto parsed = parse_tpu_options(argc, argv, exit_code);
    if (!parsed)
      return exit_code;
    const auto& o = *parsed;
    const auto started = std::chrono::steady_clock::now();
    const auto all = load_tpu_scenarios(o);
    const auto profile_dir = std::filesystem::temp_directory_path()
                             / ("paratune-tpu-bench-" + std::to_string(::getpid()));
    const auto strategies = tpu_strategies_of(o, profile_dir);
    print_optima(all, o);
    tpu_results r;
    for (const auto& s : all)
      for (int seed = 1; seed <= o.seeds; ++seed) {
        const tpu_runner runner(s, o.reality, std::uint64_t(seed));
        const double optimum = runner.optimum().first;
        for (const auto& st : strategies) {
          const auto log = st.run(runner, tpu_budgets[3]);
          if (o.trace)
            trace_run(s, st.name, seed, log, optimum);
          const auto records = records_of(log);
          for (int b : tpu_budgets) {
            const auto m = measure_run(records, b, optimum, s.exp.slice.chips());
            r.by_group["all"][st.name][b].add(m);
            r.by_group[s.group][st.name][b].add(m);
            r.by_scenario[s.name][st.name][b].add(m);
          }
        }
      }
    std::filesystem::remove_all(profile_dir);
    const auto runs = [&](const std::string& group) {
      return r.by_group.at(group).begin()->second.at(3).runs;
    };
    print_table("All scenarios, " + std::string(to_string(o.reality)) + " reality ("
                    + std::to_string(runs("all")) + " runs: " + std::to_string(all.size())
                    + " scenarios x " + std::to_string(o.seeds) + " seeds)",
                r.by_group.at("all"), strategies);
    for (const auto& [group, by] : r.by_group)
      if (group != "all")
        print_table(group + " scenarios (" + std::to_string(runs(group)) + " runs)", by,
                    strategies);
    print_per_scenario(r, strategies);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::fprintf(stderr, "bench_tpu_tuning_quality: %.0f s; optuna-tpe runs that ended early "
                         "(nothing new to ask): %d\n",
                 seconds, peer_exhausted);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_tpu_tuning_quality: %s\n", e.what());
    return 1;
  }
}
