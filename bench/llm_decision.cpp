// What the language-model path adds to one decision beyond the model's own
// latency: building the prompt from the history, parsing the answer
// strictly and running the guardrails (core/llm), against the built-in
// analysis it follows. The "model" answers at once, in process, so every
// microsecond measured is paratune's. Llama3-8B on 8 A100s with its default
// search space and a 10-trial history.

#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "adapters/config/catalog.hpp"
#include "core/job_spec.hpp"
#include "core/model_flops_utilization.hpp"
#include "core/llm/failure_decision.hpp"
#include "core/llm/llm_decision.hpp"
#include "core/perf/perf_model.hpp"

namespace {

using namespace paratune;

struct setting {
  tuning_context ctx;
  std::vector<trial_outcome> history;
  analysis builtin;
  std::string generation_prompt, ranking_prompt;
};

std::string prompt_text(const char* name) {
  std::ifstream in(configs_dir() + "/prompts/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Ten trials chosen by the built-in reasoner, each measured at 90% of the
/// model's prediction.
const setting& llama3_after_ten_trials() {
  static const setting s = [] {
    setting s;
    s.ctx.model = load_model("llama3-8b");
    s.ctx.cluster = load_cluster("dgx-a100-80g");
    s.ctx.world_size = 8;
    s.ctx.prec = precision::fp16;
    s.ctx.initial = parse_config("tp=8,pp=1,mbs=1,gbs=512,seq=8192,recompute=full");
    s.ctx.search = default_search_space(s.ctx.model, s.ctx.cluster, 8, s.ctx.initial);
    for (int trial = 1; trial <= 10; ++trial) {
      const auto a = analyze(s.ctx, s.history);
      trial_outcome o;
      o.trial = trial;
      o.config = a.selected->config;
      const auto p = predict(s.ctx.model, s.ctx.cluster, 8, o.config, s.ctx.prec);
      o.tflops_per_gpu = 0.9 * p.tflops_per_gpu;
      o.mfu = model_flops_utilization(o.tflops_per_gpu, s.ctx.cluster.device);
      o.peak_memory_mib = p.peak_memory_mib;
      o.memory_limit_mib = p.memory_limit_mib;
      s.history.push_back(o);
    }
    s.builtin = analyze(s.ctx, s.history);
    s.generation_prompt = prompt_text("strategy_generation.md");
    s.ranking_prompt = prompt_text("strategy_ranking.md");
    return s;
  }();
  return s;
}

/// The built-in reasoner's second candidate, as a model would write it.
std::string valid_proposal(const setting& s) {
  nlohmann::json config = nlohmann::json::object();
  for (const auto& [key, values] : s.ctx.search)
    config[key] = get_value(s.builtin.ranked.at(1).config, key);
  return nlohmann::json{{"config", config}, {"reason", "fewer collectives per layer"}}.dump();
}

chat_fn answers(std::vector<std::string> texts) {
  auto next = std::make_shared<size_t>(0);
  return [texts = std::move(texts), next](const std::vector<chat_message>&,
                                          const nlohmann::json&) {
    chat_outcome o;
    o.ok = true;
    o.content = texts[(*next)++ % texts.size()];
    return o;
  };
}

void bm_builtin_analysis(benchmark::State& state) {
  const auto& s = llama3_after_ten_trials();
  for (auto _ : state)
    benchmark::DoNotOptimize(analyze(s.ctx, s.history));
}

void bm_llm_turn_accepted(benchmark::State& state) {
  const auto& s = llama3_after_ten_trials();
  const auto chat = answers({valid_proposal(s)});
  for (auto _ : state) {
    auto d = decide_with_llm(reasoner_mode::llm, s.generation_prompt, "llama3-8b-a100x8", s.ctx,
                             s.history, {}, s.builtin, chat);
    if (!d.chosen)
      state.SkipWithError("the proposal was refused");
    benchmark::DoNotOptimize(d);
  }
}

void bm_llm_turn_refused_then_accepted(benchmark::State& state) {
  const auto& s = llama3_after_ten_trials();
  const auto chat = answers({R"({"config": {"zero_stage": "3"}, "reason": "shard"})",
                             valid_proposal(s)});
  for (auto _ : state) {
    auto d = decide_with_llm(reasoner_mode::llm, s.generation_prompt, "llama3-8b-a100x8", s.ctx,
                             s.history, {}, s.builtin, chat);
    if (!d.chosen || d.turns.size() != 2)
      state.SkipWithError("expected one refusal, then the proposal");
    benchmark::DoNotOptimize(d);
  }
}

void bm_hybrid_turn(benchmark::State& state) {
  const auto& s = llama3_after_ten_trials();
  const auto chat = answers({R"({"ranking": [2, 1, 3], "reason": "fewer collectives"})"});
  for (auto _ : state) {
    auto d = decide_with_llm(reasoner_mode::hybrid, s.ranking_prompt, "llama3-8b-a100x8", s.ctx,
                             s.history, {}, s.builtin, chat);
    if (!d.chosen)
      state.SkipWithError("the ranking was refused");
    benchmark::DoNotOptimize(d);
  }
}

/// Failure analysis where the rules run out: a crash with 40 lines of log,
/// the model's reading refused once (the run trained), then accepted.
void bm_failure_reading(benchmark::State& state) {
  const auto& s = llama3_after_ten_trials();
  failed_trial f{11, s.builtin.selected->config, failure_kind::none, "", 139, 6, {}};
  for (int i = 0; i < 40; ++i)
    f.log_tail.push_back(" iteration " + std::to_string(i + 1) + "/ 20 | consumed samples: 512 "
                         "| elapsed time per iteration (ms): 9120.4 | learning rate: 3.0E-04");
  const auto prompt = prompt_text("failure_analysis.md");
  const auto chat = answers(
    {R"({"kind": "config_invalid", "blamed": ["tp"], "confidence": 80, "reason": "TP"})",
     R"({"kind": "node_failure", "blamed": [], "confidence": 60, "reason": "Xid 79"})"});
  for (auto _ : state) {
    auto d = analyse_failure_with_llm(reasoner_mode::llm, prompt, "llama3-8b-a100x8", s.ctx,
                                      s.history, f, chat);
    if (!d.from_model || d.turns.size() != 2)
      state.SkipWithError("expected one refusal, then the reading");
    benchmark::DoNotOptimize(d);
  }
}

} // namespace

BENCHMARK(bm_builtin_analysis)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_llm_turn_accepted)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_llm_turn_refused_then_accepted)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_hybrid_turn)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_failure_reading)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
