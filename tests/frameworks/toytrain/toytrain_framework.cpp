// toytrain: a framework that exists only for the tests, to show what a new
// framework costs. Everything it needs is in this folder: this adapter (its
// arguments, its log, its refusals, its environment) and its trainer
// (toytrain.py). Adding it to paratune is the one registration line at the
// bottom; tests/CMakeLists.txt links it into a copy of the paratune CLI
// (paratune-toytrain), which tunes it with every guarantee of the loop.
//
// Its log, one line per event:
//   [toytrain] step 3 | 812.4 ms | 151.2 TFLOP/s | 41230 MiB
//   [toytrain] FATAL out of memory: ...
//   [toytrain] FATAL peer lost: ...
//   [toytrain] FATAL refused: ...

#include <charconv>
#include <string>

#include "core/input_error.hpp"
#include "core/trial_environment.hpp"
#include "frameworks/framework.hpp"

namespace paratune {

namespace {

constexpr std::string_view tag = "[toytrain] ";

// The number after `prefix` in `line` (from the first occurrence), or -1.
double number_after(std::string_view line, std::string_view prefix) {
  const auto at = line.find(prefix);
  if (at == std::string_view::npos)
    return -1;
  line.remove_prefix(at + prefix.size());
  double value = -1;
  std::from_chars(line.data(), line.data() + line.size(), value);
  return value;
}

class toytrain_reader final : public run_reader {
public:
  std::vector<iteration_sample> read(std::string_view line) override {
    if (line.substr(0, tag.size()) != tag)
      return {};
    seen_ = true;
    line.remove_prefix(tag.size());
    if (line.substr(0, 6) == "FATAL ") {
      failures_.push_back(failure_of(line.substr(6)));
      return {};
    }
    if (line.substr(0, 5) != "step ")
      return {};
    iteration_sample s;
    s.iteration = static_cast<long long>(number_after(line, "step "));
    s.elapsed_ms = number_after(line, "| ");
    const auto rest = line.substr(line.find("ms |") + 4);
    s.tflops_per_gpu = number_after(rest, " ");
    peak_mib_ = std::max(peak_mib_, number_after(line, "TFLOP/s | "));
    samples_.push_back(s);
    return {s};
  }
  void finish() override {}
  std::size_t failure_count() const override { return failures_.size(); }
  logged_failure failure(std::size_t i) const override { return failures_.at(i); }
  bool recognised() const override { return seen_; }
  double peak_memory_mib() const override { return peak_mib_; }
  trial_score score(int warmup) const override { return score_iterations(samples_, warmup); }

private:
  static logged_failure failure_of(std::string_view what) {
    const std::string message{what};
    if (what.starts_with("out of memory"))
      return {failure_kind::oom, message};
    if (what.starts_with("peer lost"))
      return {failure_kind::nccl_timeout, message};  // transient by the default rule
    if (what.starts_with("refused"))
      return {failure_kind::config_invalid, message};
    return {failure_kind::other, message};
  }

  bool seen_ = false;
  double peak_mib_ = 0;
  std::vector<iteration_sample> samples_;
  std::vector<logged_failure> failures_;
};

class toytrain final : public framework {
public:
  std::string_view name() const override { return "toytrain"; }
  std::string_view title() const override { return "toytrain"; }
  std::unique_ptr<run_reader> reader() const override {
    return std::make_unique<toytrain_reader>();
  }
  std::vector<std::string> trainer_args(const trainer_request& r) const override {
    const auto& c = r.config;
    // Its own rule, in its own words (toytrain.py says the same).
    if (c.pp > 1 && r.model.layers % c.pp != 0)
      throw input_error("refused: --pipeline-degree " + std::to_string(c.pp) + ": "
                        + std::to_string(r.model.layers) + " layers do not split evenly");
    return {"--tensor-degree",   std::to_string(c.tp),
            "--pipeline-degree", std::to_string(c.pp),
            "--micro-batch",     std::to_string(c.mbs),
            "--global-batch",    std::to_string(c.gbs),
            "--seq-len",         std::to_string(c.seq),
            "--recompute",       to_string(c.recompute),
            "--steps",           std::to_string(r.train_iters),
            "--devices",         std::to_string(r.world_size),
            "--layers",          std::to_string(r.model.layers)};
  }
  std::span<const measuring_flag> measuring_flags() const override {
    static constexpr measuring_flag steps[] = {{"--steps", 1}};
    return steps;
  }
  env_list environment(const framework_config&, bool simulated,
                       const env_list& inherited) const override {
    return framework_environment(1, 1, simulated, inherited);
  }
};

framework_registrar registered_toytrain{std::make_unique<toytrain>()};

} // namespace

} // namespace paratune
