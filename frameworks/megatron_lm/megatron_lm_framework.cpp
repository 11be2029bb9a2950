// Megatron-LM (pretrain_gpt.py) as a framework paratune tunes: its log is
// read by adapters/megatron's streaming parser, its trainer needs
// CUDA_DEVICE_MAX_CONNECTIONS=1 with tensor or context parallelism, and a
// run is scored by the median of its iterations after the job's warm-up.

#include "adapters/megatron/megatron_log_parser.hpp"
#include "core/megatron_args.hpp"
#include "core/training_config.hpp"
#include "frameworks/framework.hpp"

namespace paratune {

namespace {

class megatron_lm_reader final : public run_reader {
public:
  std::vector<iteration_sample> read(std::string_view line) override {
    const auto before = parser_.log().iterations.size();
    parser_.feed(line);
    parser_.feed("\n");
    const auto& its = parser_.log().iterations;
    for (auto i = before; i < its.size(); ++i)
      samples_.push_back({its[i].iteration, its[i].elapsed_ms, its[i].tflops_per_gpu.value_or(0)});
    return {samples_.begin() + long(before), samples_.end()};
  }
  void finish() override { parser_.finish(); }
  std::size_t failure_count() const override { return parser_.log().errors.size(); }
  logged_failure failure(std::size_t i) const override {
    return logged_failure_of(parser_.log().errors.at(i));
  }
  bool recognised() const override { return parser_.log().recognised(); }
  double peak_memory_mib() const override {
    double peak = 0;
    for (const auto& m : parser_.log().memory)
      peak = std::max(peak, m.max_reserved_mib);
    return peak;
  }
  trial_score score(int warmup) const override { return score_iterations(samples_, warmup); }

private:
  megatron_log_parser parser_;
  std::vector<iteration_sample> samples_;  ///< one per iteration line, in order
};

class megatron_lm final : public framework {
public:
  std::string_view name() const override { return "megatron-lm"; }
  std::string_view title() const override { return "Megatron-LM"; }
  std::vector<std::string> trainer_args(const trainer_request& r) const override {
    megatron_launch l;
    l.model = r.model;
    l.config = r.config;
    l.prec = r.prec;
    l.train_iters = r.train_iters;
    return render_megatron_args(l);
  }
  launch_field args_field() const override { return launch_field::megatron_args; }
  std::span<const measuring_flag> measuring_flags() const override {
    return paratune::measuring_flags();
  }
  bool simulated() const override { return true; }
  std::unique_ptr<run_reader> reader() const override {
    return std::make_unique<megatron_lm_reader>();
  }
  env_list environment(const framework_config& config, bool simulated,
                       const env_list& inherited) const override {
    training_config c;
    for (const auto& [key, value] : config)
      set_value(c, key, value);
    return framework_environment(c.tp, c.cp, simulated, inherited);
  }
};

framework_registrar registered_megatron_lm{std::make_unique<megatron_lm>()};

} // namespace

} // namespace paratune
