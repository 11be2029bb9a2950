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
//                        [--strategies NAME,NAME] [--fit-split] [JOB.yaml ...]
//
// Beside the shares at 3, 5, 10 and 20 trials, a table of each run whole,
// until its strategy stopped: paratune by the job's `stop:` rule (the
// default: converged), `paratune (stop: budget)` every trial, optuna-tpe
// with a stop-on-plateau callback (no 1% gain in 5 trials), and the peers
// without a stopping rule charged their budget: GPU-hours to the stop, the
// share of the optimum there, trials run, failed trials by kind.
// bench/scenarios-unseen holds four jobs no constant was set on (issue 25).
// --fit-split (vtrain only) refits the host dispatch floor on the narrow
// half of the landscapes and reports on the wide half, then the other way
// round (split_fit.hpp).
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
#include <set>
#include <string>
#include <vector>

#include "bench/tuning_quality/metrics.hpp"
#include "bench/tuning_quality/model_grid.hpp"
#include "bench/tuning_quality/optuna_tpe.hpp"
#include "bench/tuning_quality/plateau_stop.hpp"
#include "bench/tuning_quality/reality.hpp"
#include "bench/tuning_quality/split_fit.hpp"
#include "bench/tuning_quality/truth_error.hpp"
#include "bench/tuning_quality/vtrain_scenarios.hpp"
#include "adapters/config/executable_paths.hpp"
#include "core/input_error.hpp"
#include "core/perf/device_profile.hpp"
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
  /// --fit-split (vtrain): refit the host dispatch floor on one half of the
  /// landscapes by width and report on the other, both ways round.
  bool fit_split = false;
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
    else if (a == "--fit-split") o.fit_split = true;
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
  if (o.fit_split && o.reality != reality::vtrain)
    throw input_error("--fit-split: only with --reality vtrain (the tables the floor was fitted on)");
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

std::string fmt_percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100 * x);
  return buf;
}

using strategy_fn = std::function<trial_log(const scenario&, const trial_runner&, int, uint64_t)>;

struct strategy {
  const char* name;
  strategy_fn run;
  /// A stopping rule over another strategy's log (optuna-tpe with a plateau
  /// callback): its runs are that strategy's, cut where the rule stops.
  const char* cut_from = nullptr;
  std::function<trial_log(const trial_log&)> cut;
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
  const auto optuna = optuna_strategy(o);
  const auto no_cut = std::function<trial_log(const trial_log&)>{};
  std::vector<strategy> all{{"paratune", run_paratune, nullptr, no_cut},
                            {"paratune (stop: budget)", run_paratune_budget, nullptr, no_cut},
                            {"optuna-tpe", optuna, nullptr, no_cut},
                            {"optuna-tpe (plateau)", optuna, "optuna-tpe",
                             [](const trial_log& log) { return plateau_prefix(log); }},
                            {"model-grid", run_model_grid, nullptr, no_cut},
                            {"random search", run_random, nullptr, no_cut},
                            {"one change at a time", run_coordinate, nullptr, no_cut}};
  if (o.only.empty())
    return all;
  std::vector<strategy> picked;
  for (const auto& name : o.only) {
    auto it = std::find_if(all.begin(), all.end(), [&](const strategy& s) { return name == s.name; });
    if (it == all.end())
      throw input_error("--strategies: '" + name + "' is not paratune, paratune (stop: budget), "
                        "optuna-tpe, optuna-tpe (plateau), model-grid, random search or one "
                        "change at a time");
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
  // [strategy]: each run whole, until the strategy stopped (or its budget)
  std::map<std::string, stop_summary> at_stop;
  // [strategy]: the sum over runs of its GPU-hours over paratune's with
  // `stop: budget` on the same scenario and seed (when that row runs)
  std::map<std::string, double> hours_ratio_sum;
};

/// paratune with every trial of its budget: what the stop rule is held to.
constexpr const char* fixed_budget_row = "paratune (stop: budget)";

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
    for (int seed = 1; seed <= o.seeds; ++seed) {
      std::map<std::string, trial_log> logs;  // this seed's, by strategy
      for (const auto& st : strategies) {
        // Each scenario draws its own noise and failures.
        const uint64_t session = mix64(hash_name(s.job.name) + uint64_t(seed)) % 1000000;
        trial_log log;
        if (st.cut) {
          const auto base = logs.find(st.cut_from);
          log = st.cut(base != logs.end() ? base->second
                                          : st.run(s, runner, budgets[3], session));
        } else {
          log = st.run(s, runner, budgets[3], session);
        }
        logs[st.name] = log;
        if (o.trace)
          print_trace(s, st.name, session, log);
        for (int b : budgets) {
          const auto m = measure_run(log, b, s.optimum_tflops, s.context.world_size);
          r.overall[st.name][b].add(m);
          r.per_scenario[s.job.name][st.name][b].add(m);
        }
        r.at_stop[st.name].add(
          measure_stop(log, budgets[3], s.optimum_tflops, s.context.world_size));
      }
      if (const auto fixed = logs.find(fixed_budget_row); fixed != logs.end()) {
        const auto hours = [&](const trial_log& log) {
          return measure_run(log, budgets[3], s.optimum_tflops, s.context.world_size).gpu_hours;
        };
        const double fixed_hours = hours(fixed->second);
        for (const auto& [name, log] : logs)
          if (fixed_hours > 0)
            r.hours_ratio_sum[name] += hours(log) / fixed_hours;
      }
    }
  }
  return r;
}

/// GPU-hours to the answer: each run whole, until its strategy stopped;
/// a strategy without a stopping rule is charged its budget of 20.
void print_at_stop(const results& r, const std::vector<strategy>& strategies) {
  const auto fixed = r.at_stop.find(fixed_budget_row);
  const double budget_hours = fixed != r.at_stop.end()
                                ? fixed->second.run.mean_gpu_hours() : 0;
  std::printf("\nUntil each run stopped (the stop rule, or the budget of %d):\n\n", budgets[3]);
  std::printf("| strategy | trials run | GPU-hours to the stop | of paratune's 20 fixed trials | "
              "mean of the runs' own ratios | share of optimum at the stop | worst run | OOM "
              "trials | OOM after the first | infrastructure failures | other failures |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& st : strategies) {
    const auto& s = r.at_stop.at(st.name);
    const double hours = s.run.mean_gpu_hours();
    const auto ratio = r.hours_ratio_sum.find(st.name);
    std::printf("| %s | %.1f | %.1f | %s | %s | %.2f%% | %.1f%% | %.2f | %.2f | %.2f | %.2f |\n",
                st.name, s.mean(s.run.trials), hours,
                budget_hours > 0 ? fmt_percent(hours / budget_hours).c_str() : "-",
                ratio != r.hours_ratio_sum.end() ? fmt_percent(s.mean(ratio->second)).c_str()
                                                 : "-",
                100 * s.run.mean_share(), 100 * s.run.min_share, s.mean(s.run.oom),
                s.mean(s.oom_after_first), s.mean(s.infrastructure), s.mean(s.other_failures));
  }
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
  print_at_stop(r, strategies);
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
    if (o.fit_split) {
      const auto strategies = strategies_of(o);
      const auto [narrow, wide] = split_by_width(all);
      const std::pair<const char*, const std::vector<scenario>*> halves[] = {
        {"narrow", &narrow}, {"wide", &wide}};
      const double product = profile_for(all.front().job.cluster.device).host_layer_forward_s;
      for (int k = 0; k < 2; ++k) {
        const auto& [fit_name, fit_set] = halves[k];
        const auto& [report_name, report_set] = halves[1 - k];
        const double scale = fit_host_dispatch(*fit_set);
        std::set<int> widths;
        for (const auto& s : *fit_set)
          widths.insert(s.job.model.hidden);
        std::printf("#### Host dispatch floor fitted on the %s half (%zu landscapes, hidden %d to "
                    "%d): x%.2f = %.2f ms (spread of log(measured/predicted) %.3f, %.3f at the "
                    "product's %.2f ms); reported on the %s half (%zu landscapes)\n\n",
                    fit_name, fit_set->size(), *widths.begin(), *widths.rbegin(), scale,
                    1000 * product * scale, log_ratio_spread(*fit_set, scale),
                    log_ratio_spread(*fit_set, 1), 1000 * product, report_name,
                    report_set->size());
        auto held_out = *report_set;
        for (auto& s : held_out)
          s.context.cal.host_dispatch_scale = scale;
        const auto r = run_all(held_out, o, strategies);
        print_summary(r, o, held_out.size(), strategies);
      }
    } else if (!o.truth_only) {
      const auto strategies = strategies_of(o);
      const auto r = run_all(all, o, strategies);
      print_summary(r, o, all.size(), strategies);
      // Both tables set every strategy beside paratune: not with --strategies.
      if (o.only.empty() && o.reality == reality::vtrain)
        print_worst_landscapes(r, strategies);
      else if (o.only.empty())
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
