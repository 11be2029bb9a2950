// MaxText (train.py on a TPU slice) as a framework paratune tunes: its log
// is read by adapters/maxtext's reader, a run is scored by MaxText's own
// step rules (compilation, asynchronous dispatch, ramp-up and profiler
// boundaries apart: adapters/maxtext/step_scoring.hpp), and a host lost
// mid-run (XLA's barrier timeout) may pass when run again.

#include "adapters/maxtext/maxtext_log_parser.hpp"
#include "adapters/maxtext/step_scoring.hpp"
#include "core/input_error.hpp"
#include "frameworks/framework.hpp"

namespace paratune {

namespace {

class maxtext_reader final : public run_reader {
public:
  maxtext_reader() {
    parser_.on_step = [this](const maxtext_step& s) {
      // What the early stopper may judge: a timed step, not a ramp-up or a
      // profiler boundary's (the job's warm-up skips the compilation).
      if (s.seconds && !s.rampup && !s.profiler_boundary)
        fresh_.push_back({s.step, *s.seconds * 1000, s.tflops_per_device.value_or(0)});
    };
  }
  std::vector<iteration_sample> read(std::string_view line) override {
    fresh_.clear();
    parser_.feed(line);
    parser_.feed("\n");
    return fresh_;
  }
  void finish() override { parser_.finish(); }
  std::size_t failure_count() const override { return parser_.log().errors.size(); }
  logged_failure failure(std::size_t i) const override {
    return logged_failure_of(parser_.log().errors.at(i));
  }
  bool recognised() const override { return parser_.log().recognised(); }
  double peak_memory_mib() const override { return 0; } // MaxText logs no reserved memory
  trial_score score(int) const override {
    const auto s = score_of(parser_.log().steps);
    return {s.scored, s.step_ms, s.tflops_per_device};
  }

private:
  maxtext_log_parser parser_;
  std::vector<iteration_sample> fresh_;  ///< the steps the line being read completed
};

class maxtext final : public framework {
public:
  std::string_view name() const override { return "maxtext"; }
  std::string_view title() const override { return "MaxText"; }
  std::unique_ptr<run_reader> reader() const override { return std::make_unique<maxtext_reader>(); }
  std::vector<std::string> trainer_args(const trainer_request&) const override {
    // Its trials are meshes of an experiment file, checked and rendered by
    // core/tpu/maxtext_args.hpp; a job's tp/pp layouts have no MaxText form.
    throw input_error("MaxText is tuned from an experiment file (paratune tune -e FILE), "
                      "whose trials are TPU meshes, not a job's layouts");
  }
  launch_field args_field() const override { return launch_field::maxtext_args; }
  result_units units() const override { return {"step", "chip-hours"}; }
  env_list environment(const framework_config&, bool simulated,
                       const env_list& inherited) const override {
    // JAX needs no variable of paratune's: Python's unbuffered output, and
    // where the simulated trainer finds its catalogs.
    return framework_environment(1, 1, simulated, inherited);
  }
};

framework_registrar registered_maxtext{std::make_unique<maxtext>()};

} // namespace

} // namespace paratune
