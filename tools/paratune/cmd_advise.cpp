// paratune advise --history RUNS.csv: one Bottleneck Analysis step on a
// user's own tuning history (OptiCo's table format), no runs launched.

#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "adapters/config/catalog.hpp"
#include "adapters/config/history_csv.hpp"
#include "adapters/config/job_loader.hpp"
#include "core/input_error.hpp"
#include "core/job_spec.hpp"
#include "core/tuning/reasoner.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

struct advise_options {
  std::string history;
  std::string cluster;
  std::string job;
  int top = 5;
  bool json = false;
};

/// The reasoner's context: the job file when given, else the table's own
/// model, precision and GPU count on the named cluster.
tuning_context context_for(const advise_options& o, const history_table& t) {
  tuning_context ctx;
  if (!o.job.empty()) {
    auto job = load_job(o.job);
    ctx.model = job.model;
    ctx.cluster = job.cluster;
    ctx.world_size = job.world_size();
    ctx.prec = job.prec;
    ctx.search = job.search;
  } else {
    if (t.model.empty() || t.model_size.empty())
      throw input_error(o.history + ": the columns model and model_size are needed to know "
                                    "the model (or pass --job)");
    ctx.model = find_model(t.model, t.model_size);
    ctx.cluster = load_cluster(o.cluster.empty() ? "dgx-a100-80g" : o.cluster);
    ctx.world_size = t.nodes * t.devices_per_node;
    ctx.prec = t.prec;
  }
  ctx.initial = t.rows.back().config;
  if (ctx.search.empty())
    ctx.search = default_search_space(ctx.model, ctx.cluster, ctx.world_size, ctx.initial);
  // Values the history used must stay reachable, or its rows would all be
  // "outside the search space".
  for (const auto& row : t.rows)
    for (auto& [key, values] : ctx.search) {
      auto v = get_value(row.config, key);
      if (std::find(values.begin(), values.end(), v) == values.end())
        values.push_back(v);
    }
  ctx.from_last_run = true;
  return ctx;
}

nlohmann::json to_json(const analysis& a, int top) {
  nlohmann::json j;
  j["health"] = to_string(a.health.state);
  j["directive"] = directive_of(a.health.state);
  j["health_reasoning"] = a.health.reasoning;
  j["base_row"] = a.base_trial + 1;
  j["suggestions"] = nlohmann::json::array();
  for (int i = 0; i < int(a.ranked.size()) && i < top; ++i) {
    const auto& s = a.ranked[i];
    j["suggestions"].push_back({{"rank", i + 1},
                                {"text", s.text},
                                {"config", to_map(s.config)},
                                {"group", to_string(s.group)},
                                {"why", s.why},
                                {"predicted_tflops_per_gpu", s.predicted_tflops},
                                {"predicted_peak_memory_mib", s.predicted_peak_mib}});
  }
  j["rejected"] = nlohmann::json::array();
  for (const auto& s : a.rejected)
    j["rejected"].push_back({{"text", s.text}, {"reason", *s.rejected}});
  j["exhausted"] = a.exhausted;
  j["reasoning"] = a.reasoning;
  return j;
}

void print_text(const analysis& a, const tuning_context& ctx, int top) {
  std::cout << "model " << ctx.model.name << " on " << ctx.world_size << " x "
            << ctx.cluster.device.name << " (" << ctx.cluster.name << "), "
            << to_string(ctx.prec) << "\n";
  std::cout << "current run: row " << a.base_trial + 1 << "\n";
  std::cout << "health: " << to_string(a.health.state) << " (" << directive_of(a.health.state)
            << ")\n  " << a.health.reasoning << "\n";
  if (a.ranked.empty()) {
    std::cout << "All plausible configurations have been tried: nothing new and valid remains.\n";
    return;
  }
  std::cout << "suggestions, best first:\n";
  for (int i = 0; i < int(a.ranked.size()) && i < top; ++i) {
    const auto& s = a.ranked[i];
    std::printf("  %d. %s\n     why: %s\n     expected: %.1f TFLOP/s/GPU, peak %.0f MiB [%s]\n",
                i + 1, s.text.c_str(), s.why.c_str(), s.predicted_tflops, s.predicted_peak_mib,
                to_string(s.group));
  }
  int shown = 0;
  for (const auto& s : a.rejected) {
    if (shown++ == 0)
      std::cout << "not suggested:\n";
    std::cout << "  - " << s.text << " " << *s.rejected << "\n";
  }
}

int run_advise(const advise_options& o) {
  auto table = load_history_csv(o.history);
  auto ctx = context_for(o, table);
  auto a = analyze(ctx, table.rows);
  if (o.json)
    print_json(to_json(a, o.top));
  else
    print_text(a, ctx, o.top);
  return 0;
}

command_action setup_advise(CLI::App& app) {
  auto o = std::make_shared<advise_options>();
  app.add_option("--history", o->history, "runs in the OptiCo table format (CSV)")->required();
  auto* cluster = app.add_option("--cluster", o->cluster, "cluster catalog name or YAML file "
                                                          "(default dgx-a100-80g)");
  app.add_option("--job", o->job, "a job file: its model, cluster and search space")
    ->excludes(cluster);
  app.add_option("--top", o->top, "how many suggestions to print")->check(CLI::Range(1, 100000));
  app.add_flag("--json", o->json, "print one JSON object");
  return [o] { return run_advise(*o); };
}

registrar advise_command{{"advise", "rank the next configuration changes for your own run history", setup_advise}};

} // namespace

} // namespace paratune::cli
