// bench_tuning_quality: how well paratune's loop tunes, against Optuna's
// TPE (a Python peer over the trial protocol), a model-ranked grid, random
// search and one-change-at-a-time search, at equal trial budgets, on the
// scenarios of OptiCo Table 1 (bench/scenarios/*.yaml) and any job files
// given on the command line. Every strategy runs against the simulated
// cluster in process (core/perf/simulated_cluster.hpp: the hidden truth,
// 1% run-to-run noise, injected NCCL timeouts and node losses); paratune's
// decisions are core analyze() on the history, exactly what
// `paratune tune` decides over the bus. Scores are shares of the exhaustive
// ground-truth optimum. Prints Markdown (docs/benchmarks.md).
//
//   bench_tuning_quality [--reality simulated|independent] [--seeds N]
//                        [--failure-rate P] [--scenarios DIR] [--truth-only] [--trace]
//                        [--hidden-truth NAME] [--peer-python PATH]
//                        [--strategies NAME,NAME] [JOB.yaml ...]
//
// --strategies keeps only the named rows ("paratune,model-grid"): the
// quick check while the reasoner changes; the tables in docs/benchmarks.md
// come from every row.
// --reality picks the hidden truth: `simulated` (paratune's model perturbed,
// plus structure it lacks) or `independent` (sim/gpu/independent_truth: a
// roofline the model did not generate) or `vtrain` (the 124 measured
// vTrain landscapes with at least 4 configurations, replayed exactly; a
// configuration outside the measured set is refused at no trial cost and
// counted; --data DIR or $PARATUNE_DATA names the data directory; names
// given instead of job files pick landscapes).
// The optuna-tpe peer runs bench/tuning_quality/optuna_peer.py under
// --peer-python (default /usr/bin/python3, where python3-optuna installs).
//
// --hidden-truth NAME draws the simulated cluster's hidden truth from NAME
// instead of the cluster's name: the same hardware with another truth, to
// check that a result is not the luck of one draw.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/tuning_quality/metrics.hpp"
#include "bench/tuning_quality/model_grid.hpp"
#include "bench/tuning_quality/optuna_tpe.hpp"
#include "bench/tuning_quality/reality.hpp"
#include "bench/tuning_quality/truth_error.hpp"
#include "bench/tuning_quality/vtrain_scenarios.hpp"
#include "adapters/config/executable_paths.hpp"
#include "core/input_error.hpp"
#include "core/text.hpp"

using namespace paratune;
using namespace paratune::bench;

namespace {

struct options {
  int seeds = 5;
  double failure_rate = 0.03;   ///< paratune tune's default --sim-failure-rate
  std::string scenarios_dir = "bench/scenarios";
  bool truth_only = false;
  bool trace = false;           ///< print every trial of every run (stderr)
  std::string truth_name;       ///< draw the hidden truth from this name instead
  bench::reality reality = bench::reality::simulated;
  std::string peer_python = "/usr/bin/python3";
  std::string data_dir;         ///< vtrain: where data/perf's tables are
  std::vector<std::string> files;
  /// --strategies a,b: only these rows (the default: every strategy).
  std::vector<std::string> only;
};

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw input_error(a + ": expected a value");
      return argv[++i];
    };
    if (a == "--seeds") o.seeds = std::atoi(value().c_str());
    else if (a == "--failure-rate") o.failure_rate = std::atof(value().c_str());
    else if (a == "--scenarios") o.scenarios_dir = value();
    else if (a == "--truth-only") o.truth_only = true;
    else if (a == "--trace") o.trace = true;
    else if (a == "--hidden-truth") o.truth_name = value();
    else if (a == "--peer-python") o.peer_python = value();
    else if (a == "--data") o.data_dir = value();
    else if (a == "--strategies") o.only = split(value(), ',');
    else if (a == "--reality") {
      const auto v = value();
      const auto r = parse_reality(v);
      if (!r)
        throw input_error("--reality: '" + v + "' is not simulated, independent or vtrain");
      o.reality = *r;
    }
    else if (!a.empty() && a[0] == '-') throw input_error("unknown option " + a);
    else o.files.push_back(a);
  }
  if (o.seeds < 1)
    throw input_error("--seeds: expected at least 1");
  return o;
}

std::vector<std::string> scenario_files(const options& o) {
  std::vector<std::string> files;
  if (!o.scenarios_dir.empty() && std::filesystem::is_directory(o.scenarios_dir))
    for (const auto& e : std::filesystem::directory_iterator(o.scenarios_dir))
      if (e.path().extension() == ".yaml")
        files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  files.insert(files.end(), o.files.begin(), o.files.end());
  return files;
}

void print_truth_table(const std::vector<scenario>& all) {
  std::printf("### Ground truth against the predictor\n\n");
  std::printf("| scenario | valid configs | fit (truth) | iteration time MAPE | bias | "
              "spread around the bias | max | top-10 Kendall | top-10 Spearman | "
              "predicted best = true best | true share of predicted best | peak memory MAPE | "
              "fit verdicts wrong |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  double mape = 0, spread = 0, kendall = 0, share = 0;
  int matches = 0;
  for (const auto& s : all) {
    const auto e = measure_truth_error(s);
    mape += e.time_mape;
    spread += e.time_spread;
    kendall += e.top10_kendall;
    share += e.predicted_best_share;
    matches += e.best_matches;
    std::printf("| %s | %d | %d | %.1f%% | %+.1f%% | %.1f%% | %.1f%% | %.2f | %.2f | %s | %.1f%% | "
                "%.1f%% | %d |\n",
                s.job.name.c_str(), e.configs, e.true_fits, 100 * e.time_mape, 100 * e.time_bias,
                100 * e.time_spread, 100 * e.time_max, e.top10_kendall, e.top10_spearman,
                e.best_matches ? "yes" : "no", 100 * e.predicted_best_share, 100 * e.memory_mape,
                e.verdict_mismatches);
  }
  const double n = double(all.size());
  std::printf("| **mean** | | | **%.1f%%** | | %.1f%% | | %.2f | | %d of %zu | %.1f%% | | |\n\n",
              100 * mape / n, 100 * spread / n, kendall / n, matches, all.size(), 100 * share / n);
}

using strategy_fn = std::function<trial_log(const scenario&, const trial_runner&, int, uint64_t)>;

struct strategy {
  const char* name;
  strategy_fn run;
};

/// Runs of the optuna-tpe peer that ended before their budget because TPE
/// had nothing new to ask (reported on stderr).
int optuna_exhausted = 0;

/// The optuna-tpe peer as a strategy: a peer that breaks the protocol
/// stops the bench (its rows would mean nothing).
strategy_fn optuna_strategy(const options& o) {
  auto peer = optuna_peer(".");
  peer.command[0] = o.peer_python;
  return [peer](const scenario& s, const trial_runner& runner, int budget, uint64_t seed) {
    auto r = run_peer(s, runner, budget, seed, peer);
    if (!r.error.empty())
      throw std::runtime_error("optuna-tpe on " + s.job.name + ": " + r.error);
    optuna_exhausted += r.exhausted;
    return r.log;
  };
}

std::vector<strategy> strategies_of(const options& o) {
  std::vector<strategy> all{{"paratune", run_paratune},
                            {"optuna-tpe", optuna_strategy(o)},
                            {"model-grid", run_model_grid},
                            {"random search", run_random},
                            {"one change at a time", run_coordinate}};
  if (o.only.empty())
    return all;
  std::vector<strategy> picked;
  for (const auto& name : o.only) {
    auto it = std::find_if(all.begin(), all.end(), [&](const strategy& s) { return name == s.name; });
    if (it == all.end())
      throw input_error("--strategies: '" + name + "' is not paratune, optuna-tpe, model-grid, "
                        "random search or one change at a time");
    picked.push_back(*it);
  }
  return picked;
}

const int budgets[] = {3, 5, 10, 20};

struct results {
  // [strategy][budget] over every scenario and seed
  std::map<std::string, std::map<int, summary>> overall;
  // [scenario][strategy][budget]
  std::map<std::string, std::map<std::string, std::map<int, summary>>> per_scenario;
};

void print_trace(const scenario& s, const char* strategy, uint64_t seed, const trial_log& log) {
  std::fprintf(stderr, "%s, %s, seed %llu (optimum %.1f TFLOP/s/GPU):\n", s.job.name.c_str(),
               strategy, static_cast<unsigned long long>(seed), s.optimum_tflops);
  for (size_t i = 0; i < log.size(); ++i) {
    const auto& o = log[i].outcome;
    std::fprintf(stderr, "  %2zu %-9s measured %6.1f true %6.1f (%5.1f%%) mem %5.0f  %s\n", i + 1,
                 to_string(o.status), o.tflops_per_gpu, log[i].true_tflops,
                 100 * log[i].true_tflops / s.optimum_tflops, o.peak_memory_mib,
                 describe_change(s.context.initial, o.config).c_str());
  }
}

results run_all(const std::vector<scenario>& all, const options& o,
                const std::vector<strategy>& strategies) {
  results r;
  for (const auto& s : all) {
    const trial_runner runner(s, o.failure_rate);
    for (const auto& st : strategies)
      for (int seed = 1; seed <= o.seeds; ++seed) {
        // Each scenario draws its own noise and failures.
        const uint64_t session = mix64(hash_name(s.job.name) + uint64_t(seed)) % 1000000;
        const auto log = st.run(s, runner, budgets[3], session);
        if (o.trace)
          print_trace(s, st.name, session, log);
        for (int b : budgets) {
          const auto m = measure_run(log, b, s.optimum_tflops, s.context.world_size);
          r.overall[st.name][b].add(m);
          r.per_scenario[s.job.name][st.name][b].add(m);
        }
      }
  }
  return r;
}

void print_summary(const results& r, const options& o, size_t scenarios,
                   const std::vector<strategy>& strategies) {
  if (o.reality == reality::vtrain)  // measured outcomes replayed as they are
    std::printf("### Tuning quality, vtrain reality (%zu measured landscapes x %d seeds, exact "
                "replay)\n\n", scenarios, o.seeds);
  else
    std::printf("### Tuning quality, %s reality (%zu scenarios x %d seeds, failure rate %.0f%%)\n\n",
                to_string(o.reality), scenarios, o.seeds, 100 * o.failure_rate);
  std::printf("| strategy | budget | mean share of optimum | worst run | runs reaching 99%% | "
              "trials to 99%% (those runs) | failed trials | of which OOM | GPU-hours per run |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& st : strategies)
    for (int b : budgets) {
      const auto& s = r.overall.at(st.name).at(b);
      std::printf("| %s | %d | %.2f%% | %.1f%% | %d/%d | %.1f | %.1f%% | %.1f%% | %.1f |\n",
                  st.name, b, 100 * s.mean_share(), 100 * s.min_share, s.reached_99, s.runs,
                  s.mean_trials_to_99(), 100 * s.failed_rate(), 100 * s.oom_rate(),
                  s.mean_gpu_hours());
    }
  if (o.reality == reality::vtrain) {
    // Asks outside the measured set, refused before launch at no trial cost.
    std::printf("\nRefused before launch (not measured), per run: ");
    for (const auto& st : strategies)
      std::printf("%s %.1f at 5, %.1f at 10; ", st.name, r.overall.at(st.name).at(5).mean_refused(),
                  r.overall.at(st.name).at(10).mean_refused());
    std::printf("\n");
  }
  std::printf("\n");
}

/// The replay has 124 landscapes: the ten where paratune does worst at 5
/// trials, with every strategy beside it.
void print_worst_landscapes(const results& r, const std::vector<strategy>& strategies) {
  std::vector<std::pair<double, std::string>> by_share;
  for (const auto& [name, by] : r.per_scenario)
    by_share.emplace_back(by.at("paratune").at(5).mean_share(), name);
  std::sort(by_share.begin(), by_share.end());
  const auto below_97 = std::count_if(by_share.begin(), by_share.end(),
                                      [](const auto& x) { return x.first < 0.97; });
  std::printf("Landscapes where paratune's mean share at 5 trials is below 97%%: %td of %zu\n\n",
              below_97, by_share.size());
  std::printf("### The ten landscapes where paratune does worst at 5 trials (mean share of the "
              "measured optimum at 5)\n\n| landscape |");
  for (const auto& st : strategies)
    std::printf(" %s |", st.name);
  std::printf("\n|---|");
  for (size_t i = 0; i < strategies.size(); ++i)
    std::printf("---|");
  std::printf("\n");
  for (size_t i = 0; i < by_share.size() && i < 10; ++i) {
    std::printf("| %s |", by_share[i].second.c_str());
    for (const auto& st : strategies)
      std::printf(" %.1f%% |", 100 * r.per_scenario.at(by_share[i].second).at(st.name).at(5).mean_share());
    std::printf("\n");
  }
  std::printf("\n");
}

void print_per_scenario(const results& r) {
  std::printf("### Mean share of the optimum per scenario (paratune at 3 / 5 / 10 / 20 trials; "
              "the others at 5 and 10)\n\n");
  std::printf("| scenario | paratune 3 | paratune 5 | paratune 10 | paratune 20 | paratune failed | "
              "optuna-tpe 5 | optuna-tpe 10 | model-grid 5 | model-grid 10 | random 10 | "
              "one change 10 |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& [name, by] : r.per_scenario) {
    const auto& p = by.at("paratune");
    std::printf("| %s | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f%% | "
                "%.1f%% | %.1f%% | %.1f%% |\n",
                name.c_str(), 100 * p.at(3).mean_share(), 100 * p.at(5).mean_share(),
                100 * p.at(10).mean_share(), 100 * p.at(20).mean_share(),
                100 * p.at(20).failed_rate(), 100 * by.at("optuna-tpe").at(5).mean_share(),
                100 * by.at("optuna-tpe").at(10).mean_share(),
                100 * by.at("model-grid").at(5).mean_share(),
                100 * by.at("model-grid").at(10).mean_share(),
                100 * by.at("random search").at(10).mean_share(),
                100 * by.at("one change at a time").at(10).mean_share());
  }
  std::printf("\n");
}

} // namespace

int main(int argc, char** argv) {
  try {
    const auto o = parse_options(argc, argv);
    const auto start = std::chrono::steady_clock::now();
    std::vector<scenario> all;
    if (o.reality == reality::vtrain) {
      // Names on the command line pick landscapes (vtrain-h1024-l16-...).
      for (auto& l : load_vtrain_scenarios(find_data_dir(o.data_dir)))
        if (o.files.empty()
            || std::find(o.files.begin(), o.files.end(), l.job.name) != o.files.end())
          all.push_back(std::move(l));
    }
    else
      for (const auto& f : scenario_files(o))
        all.push_back(load_scenario(f, o.truth_name, o.reality));
    if (all.empty())
      throw input_error("no scenario: pass job files or --scenarios DIR");
    // A measured landscape has no predictor error table: its peaks are unknown.
    if (o.reality != reality::vtrain)
      print_truth_table(all);
    if (!o.truth_only) {
      const auto strategies = strategies_of(o);
      const auto r = run_all(all, o, strategies);
      print_summary(r, o, all.size(), strategies);
      if (o.reality == reality::vtrain)
        print_worst_landscapes(r, strategies);
      else
        print_per_scenario(r);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fflush(stdout);
    std::fprintf(stderr, "bench_tuning_quality: %zu scenarios in %.0f s; optuna-tpe runs ended "
                 "early with nothing new to ask: %d\n", all.size(), s, optuna_exhausted);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_tuning_quality: %s\n", e.what());
    return 2;
  }
}
