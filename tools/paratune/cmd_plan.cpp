// `paratune plan --model M --cluster C --gpus N [--seq S --gbs B]`,
// `paratune plan --job JOB.yaml` (the job's base configuration and search
// space, and its trial 1 as tune predicts it) or
// `paratune plan --experiment EXP.yaml`: the configurations of the search
// space (on TPU, every ICI and DCN mesh of the slices) that start and fit,
// best predicted throughput first, and why the others were rejected.

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/human_units.hpp"
#include "core/input_error.hpp"
#include "core/model_flops_utilization.hpp"
#include "core/tpu/mesh_planner.hpp"
#include "core/job_spec.hpp"
#include "core/megatron_rules.hpp"
#include "core/training_config.hpp"
#include "core/tuning/memory_screen.hpp"
#include "core/tuning/space_planner.hpp"
#include "core/perf/memory_verdict.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/job_options.hpp"
#include "tools/paratune/mesh_view.hpp"
#include "tools/paratune/plan_view.hpp"
#include "tools/paratune/prediction_view.hpp"
#include "tools/paratune/json_output.hpp"

namespace paratune::cli {

namespace {

struct plan_options {
  job_options job;
  int seq = 0;   ///< 0: 2048, or the job's or experiment's
  int gbs = 0;   ///< 0: the smallest multiple of --gpus that is at least 512, or the job's
  int top = 10;
  std::string space;
};

// The space around `base`: a job file's own search space, else the default
// one; --seq and --gbs replace the base's, --space the keys it names.
plan_request make_request(const plan_options& o, const job_setup& job,
                          const job_spec* job_file = nullptr) {
  if (o.seq < 0)
    throw input_error("--seq " + std::to_string(o.seq) + ": must be positive");
  if (o.gbs < 0)
    throw input_error("--gbs " + std::to_string(o.gbs) + ": must be positive");
  if (o.top < 1)
    throw input_error("--top " + std::to_string(o.top) + ": must be positive");
  plan_request r{job.model, job.cluster, job.gpus, job.prec, {}, {},
                 static_cast<std::size_t>(o.top), job.cal};
  if (job_file)
    r.base = job_file->initial;
  if (o.seq > 0 || !job_file)
    r.base.seq = o.seq > 0 ? o.seq : 2048;
  if (o.gbs > 0 || !job_file)
    r.base.gbs = o.gbs > 0 ? o.gbs : job.gpus * ((512 + job.gpus - 1) / job.gpus);
  try {
    r.space = override_space(job_file ? job_file->search
                                      : default_search_space(job.model, job.cluster, job.gpus,
                                                             r.base),
                             o.space);
  } catch (const input_error& e) {
    throw input_error("--space: " + std::string(e.what()));
  }
  return r;
}

void write_rejections(std::ostream& out, const plan_result& res) {
  out << fmt::format("rejected by memory: {} (tune's memory screen before any run: predicted "
                     "over the device, or above it even at the low end of the model's measured "
                     "error, {:+.0f}%..{:+.0f}%)\n",
                     res.memory_rejected, 100 * measured_memory_error.low,
                     100 * measured_memory_error.high)
      << fmt::format("rejected by Megatron-LM rules: {} (a candidate breaking several rules "
                     "counts under each)\n", res.rule_rejected);
  // Most frequent rule first: that is the knob the space wastes most on.
  std::vector<std::pair<std::string, std::size_t>> rules(res.rejected_by_rule.begin(),
                                                         res.rejected_by_rule.end());
  std::stable_sort(rules.begin(), rules.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [rule, n] : rules)
    out << fmt::format("  {:<30} {:>8}  e.g. {}\n", rule, n, res.rule_example.at(rule));
}

// A job file's trial 1: its initial configuration, as tune predicts and
// screens it before running it (`start: initial`).
struct initial_trial {
  std::string job;
  training_config config;
  perf_prediction prediction;
  std::optional<std::string> screened_out;
};

std::optional<initial_trial> initial_of(const job_spec* job_file, const plan_request& r) {
  if (!job_file || job_file->start != start_policy::initial)
    return std::nullopt;
  initial_trial t{job_file->name, job_file->initial,
                  predict(r.model, r.cluster, r.world_size, job_file->initial, r.prec, r.cal),
                  std::nullopt};
  t.screened_out = screen_before_any_run(t.config, t.prediction);
  return t;
}

void write_initial(const initial_trial& t) {
  const auto& p = t.prediction;
  std::cout << fmt::format("\ntrial 1 of job {} runs its initial configuration: predicted "
                           "{:.1f} TFLOP/s/GPU, MFU {}, {:.0f} tokens/s/GPU, peak {:.0f} MiB "
                           "({})\n",
                           t.job, p.tflops_per_gpu, mfu_text(p.mfu), p.tokens_per_s_per_gpu,
                           p.peak_memory_mib,
                           t.screened_out ? "tune's " + *t.screened_out + ": skipped"
                                          : std::string(memory_verdict_words(p.memory)));
}

void write_text(const plan_request& r, const plan_result& res, const job_setup& job,
                const std::optional<initial_trial>& initial, double seconds) {
  std::string keys;
  for (const auto& [k, v] : r.space)
    keys += (keys.empty() ? "" : ", ") + k + "(" + std::to_string(v.size()) + ")";
  std::cout << "plan: " << describe_job(job) << ", seq " << r.base.seq << ", gbs " << r.base.gbs
            << (initial ? ", the search space of job " + initial->job : std::string()) << '\n'
            << fmt::format("space: {} candidates over {}, screened in {:.3f} s\n", res.candidates,
                           keys, seconds)
            << fmt::format("fit: {} in {} (tp, pp, dp, cp, ep, mbs); each row is a "
                           "layout's best variant of the other keys\n\n",
                           count_of(static_cast<long long>(res.fitting), "configuration"),
                           count_of(static_cast<long long>(res.layouts), "layout"));
  if (res.top.empty())
    std::cout << "no configuration starts and fits\n";
  else
    write_plan_table(std::cout, r, res);
  std::cout << '\n';
  write_rejections(std::cout, res);
  if (initial)
    write_initial(*initial);
}

nlohmann::json plan_json(const plan_request& r, const plan_result& res, const job_setup& job,
                         const std::optional<initial_trial>& initial) {
  using nlohmann::json;
  json top = json::array();
  int rank = 0;
  for (const auto& t : res.top) {
    json j = prediction_json(t.prediction);
    j.erase("memory");  // the table's summary; `predict` gives the full breakdown
    j["rank"] = ++rank;
    j["config"] = config_json(t.config);
    j["config_key"] = canonical_key(t.config);
    j["layout"] = plan_layout(t.config, r.world_size);
    j["variants"] = t.variants;
    top.push_back(std::move(j));
  }
  json rules = json::object();
  for (const auto& [rule, n] : res.rejected_by_rule)
    rules[rule] = {{"count", n}, {"example", res.rule_example.at(rule)}};
  nlohmann::json first = nullptr;
  if (initial) {
    first = prediction_json(initial->prediction);
    first.erase("memory");
    first["config"] = config_json(initial->config);
    first["memory_screen"] =
      initial->screened_out ? json(*initial->screened_out) : json(nullptr);
  }
  return {{"model", job.model.name},     {"cluster", job.cluster.name},
          {"job", initial ? json(initial->job) : json(nullptr)},
          {"initial", first},
          {"gpus", job.gpus},            {"precision", to_string(job.prec)},
          {"seq", r.base.seq},           {"gbs", r.base.gbs},
          {"space", r.space},            {"candidates", res.candidates},
          {"fitting", res.fitting},      {"layouts", res.layouts},
          {"rejected_by_memory", res.memory_rejected},
          {"rejected_by_rules", res.rule_rejected},
          {"rejected_by_rule", rules},   {"top", top}};
}

// The experiment's own mesh as `predict --experiment` sees it, and its place
// in the ranking (0: not among the meshes shown), so that plan and predict
// name the same limiting factor for it in the same output.
struct current_mesh {
  mesh_prediction prediction;
  std::size_t rank = 0;
};

current_mesh place_current_mesh(const experiment_spec& e, const mesh_plan_result& res) {
  current_mesh c{predict_mesh(e.model, e.cluster, e.slice, e.mesh, e.dcn_mesh, e.workload), 0};
  for (std::size_t i = 0; i < res.top.size(); ++i)
    if (res.top[i].prediction.ici == e.mesh && res.top[i].prediction.dcn == e.dcn_mesh)
      c.rank = i + 1;
  return c;
}

void write_current_mesh(const current_mesh& c) {
  const auto& p = c.prediction;
  std::cout << fmt::format("\nthe experiment's mesh {}: ", to_string(p.ici));
  if (!p.valid()) {
    std::cout << "cannot run: " << p.problems.front() << '\n';
    return;
  }
  std::cout << fmt::format("step {:.3f} s, limiting {}, {}\n", p.step_s, p.limiting,
                           c.rank > 0 ? fmt::format("rank {}", c.rank)
                                      : std::string("not among the meshes shown"));
}

// TPU: every ICI and DCN mesh of the experiment's slices, fastest first.
void write_mesh_plan(const experiment_spec& e, const mesh_plan_result& res, double seconds) {
  std::cout << "plan: " << describe_mesh_job(e) << '\n'
            << fmt::format("space: {} meshes (ICI over data, fsdp, seq, model{}; DCN over data, "
                           "fsdp), screened in {:.3f} s\n",
                           res.candidates, e.model.is_moe() ? ", expert" : "", seconds)
            << fmt::format("fit: {}\n\n", res.fitting);
  if (res.top.empty())
    std::cout << "no mesh runs this job and fits\n";
  else
    std::cout << fmt::format("{:>4}  {:<36} {:<16} {:>9} {:>8} {:>6} {:>9}  {}\n", "rank", "mesh",
                             "dcn mesh", "step s", "TFLOP/s", "MFU", "peak GiB", "limiting");
  int rank = 0;
  for (const auto& t : res.top) {
    const auto& p = t.prediction;
    std::cout << fmt::format("{:>4}  {:<36} {:<16} {:>9.3f} {:>8.1f} {:>5.1f}% {:>9.2f}  {}\n",
                             ++rank, to_string(p.ici), to_string(p.dcn), p.step_s,
                             p.tflops_per_chip, 100 * p.mfu, p.memory.total_gib, p.limiting);
  }
  std::cout << fmt::format("\nrejected by memory: {}\nrejected by sizes that do not divide: {} "
                           "(a mesh breaking several rules counts under each)\n",
                           res.memory_rejected, res.invalid);
  std::vector<std::pair<std::string, std::size_t>> rules(res.rejected_by_rule.begin(),
                                                         res.rejected_by_rule.end());
  std::stable_sort(rules.begin(), rules.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [rule, n] : rules)
    std::cout << fmt::format("  {:<48} {:>6}  e.g. {}\n", rule, n, res.rule_example.at(rule));
  write_current_mesh(place_current_mesh(e, res));
}

nlohmann::json mesh_plan_json(const experiment_spec& e, const mesh_plan_result& res) {
  using nlohmann::json;
  json top = json::array();
  int rank = 0;
  for (const auto& t : res.top) {
    json j = mesh_prediction_json(t.prediction);
    for (const char* detail : {"axes", "ops", "memory"})
      j.erase(detail);  // `predict --experiment` gives them for one mesh
    j["rank"] = ++rank;
    top.push_back(std::move(j));
  }
  json rules = json::object();
  for (const auto& [rule, n] : res.rejected_by_rule)
    rules[rule] = {{"count", n}, {"example", res.rule_example.at(rule)}};
  json j = mesh_job_json(e);
  j.update({{"candidates", res.candidates},
            {"fitting", res.fitting},
            {"rejected_by_memory", res.memory_rejected},
            {"rejected_by_rules", res.invalid},
            {"rejected_by_rule", rules},
            {"top", top}});
  const auto current = place_current_mesh(e, res);
  j["current"] = {{"mesh", to_string(current.prediction.ici)},
                  {"valid", current.prediction.valid()},
                  {"step_time_s", current.prediction.step_s},
                  {"limiting_factor", current.prediction.limiting},
                  {"rank", current.rank > 0 ? json(current.rank) : json(nullptr)}};
  return j;
}

int plan_mesh_experiment(const plan_options& o, const experiment_spec& e) {
  if (!o.space.empty() || o.gbs != 0 || o.seq != 0)
    throw input_error("--space, --gbs and --seq are Megatron-LM plan options; a TPU "
                      "experiment's batch and sequence are in its file");
  if (o.top < 1)
    throw input_error("--top " + std::to_string(o.top) + ": must be positive");
  mesh_plan_request r{e.model, e.cluster, e.slice, e.workload, static_cast<std::size_t>(o.top), {}};
  const auto start = std::chrono::steady_clock::now();
  const auto res = plan_meshes(r);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  if (o.job.json)
    print_json(mesh_plan_json(e, res));
  else
    write_mesh_plan(e, res, took.count());
  return 0;
}

int run_plan(const plan_options& o) {
  check_job_or_experiment(o.job);
  job_setup job;
  plan_options opts = o;
  std::optional<job_spec> job_file;
  if (!o.job.job.empty()) {
    auto loaded = resolve_job_file(o.job);
    job = loaded.setup;
    job_file = std::move(loaded.job);
  } else if (!o.job.experiment.empty()) {
    const auto e = load_experiment(o.job.experiment);
    if (e.platform == device_platform::tpu)
      return plan_mesh_experiment(o, e);
    job = resolve_gpu_experiment(e, o.job);
    if (o.seq == 0 && o.gbs == 0) {  // the experiment's own, unless given
      opts.seq = e.megatron.seq;
      opts.gbs = e.megatron.gbs;
    }
  } else {
    job = resolve(o.job);
  }
  const plan_request r = make_request(opts, job, job_file ? &*job_file : nullptr);
  const auto initial = initial_of(job_file ? &*job_file : nullptr, r);
  const auto start = std::chrono::steady_clock::now();
  const plan_result res = plan_space(r);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  if (o.job.json)
    print_json(plan_json(r, res, job, initial));
  else
    write_text(r, res, job, initial, took.count());
  return 0;
}

command_action setup_plan(CLI::App& sub) {
  auto o = std::make_shared<plan_options>();
  add_job_options(sub, o->job);
  // The ranges of the seq and gbs configuration keys.
  const auto seq = find_config_key("seq")->range, gbs = find_config_key("gbs")->range;
  sub.add_option("--seq", o->seq, "sequence length (default 2048, or the job's)")
    ->check(CLI::Range(seq.min, seq.max));
  sub.add_option("--gbs", o->gbs,
                 "global batch size (default: the job's, else the smallest multiple of --gpus "
                 ">= 512)")
    ->check(CLI::Range(gbs.min, gbs.max));
  sub.add_option("--top", o->top, "how many configurations to list (default 10)")
    ->check(CLI::Range(1, 100000));
  sub.add_option("--space", o->space,
                 "replace or add search keys (of the job's space with --job): KEY=V1|V2,... "
                 "e.g. tp=2|4,recompute=none,cp=1|2");
  return [o] { return run_plan(*o); };
}

} // namespace

static registrar plan_command{{"plan",
                    "Rank the configurations of a search space by predicted throughput",
                    setup_plan}};

} // namespace paratune::cli
