#include "core/tuning/throughput_estimator.hpp"

#include <algorithm>
#include <cmath>

#include "core/tuning/health.hpp"
#include "core/tuning/memory_screen.hpp"
#include "core/tuning/work_order.hpp"

namespace paratune {

namespace {

/// A neighbour's weight in the local correction, by config_distance.
double neighbour_weight(int distance) { return std::exp(-0.5 * distance); }

/// Prior weight of "no local deviation": a neighbour a flag away sets
/// about 85% of a candidate's correction, one a TP change away about 70%,
/// a run six changes away a third.
constexpr double prior_weight = 0.1;

/// How far apart two parallel splits are: config_distance without the
/// flags that leave the work per GPU alone (distributed optimizer, the
/// overlaps, the fused loss), whose effect the model gets within a percent.
int split_distance(const training_config& a, const training_config& b) {
  training_config x = a;
  x.dist_opt = b.dist_opt;
  x.overlap_grad = b.overlap_grad;
  x.overlap_param = b.overlap_param;
  x.fused_ce = b.fused_ce;
  x.grad_reduce_bf16 = b.grad_reduce_bf16;
  return config_distance(x, b);
}

} // namespace

throughput_estimator::throughput_estimator(const tuning_context& ctx,
                                           const std::vector<trial_outcome>& history)
  : ctx_(ctx), history_(history) {
  std::unordered_map<std::string, size_t> index_of;
  for (size_t i = 0; i < history.size(); ++i) {
    const auto& h = history[i];
    if (!h.measured())
      continue;
    const double predicted = raw(h.config).tflops_per_gpu;
    if (predicted <= 0)
      continue;
    const auto [it, fresh] = index_of.try_emplace(fingerprint(h.config), measured_.size());
    if (fresh)
      measured_.push_back({int(i), 0, 0});
    auto& m = measured_[it->second];
    const double log_ratio = std::log(h.tflops_per_gpu / predicted);
    m.log_ratio_sum += log_ratio;
    ++m.runs;
  }
  for (const auto& m : measured_)
    trend_.add(history_[m.first].config, m.log_ratio_sum / m.runs);
  trend_.fit(model_sigma, slope_prior());
  for (auto& m : measured_)
    m.deviation = m.log_ratio_sum - m.runs * trend_.at(history_[m.first].config);
}

size_t throughput_estimator::config_hash::operator()(const training_config& c) const {
  size_t h = 0xcbf29ce484222325ull;
  for (const auto& key : config_key_table())
    h = (h ^ size_t(uint32_t(key.read(c)))) * 0x100000001b3ull;
  return h;
}

const perf_prediction& throughput_estimator::raw(const training_config& c) {
  auto it = cache_.find(c);
  if (it == cache_.end())
    it = cache_.emplace(c, predict(ctx_.model, ctx_.cluster, ctx_.world_size, c, ctx_.prec,
                                      ctx_.cal)).first;
  return it->second;
}

double throughput_estimator::slope_prior() const {
  // Two measured splits cannot tell a slope from one split's own departure
  // from the trend (six slopes, one difference): until a third, the trend
  // is the session's bias alone and the model ranks the rest.
  if (trend_.size() < slopes_from)
    return no_slope_sigma;
  // The model's own error per doubling, or more where this session's runs
  // spread further around one bias.
  return std::clamp(trend_.spread(), model_sigma, max_slope_sigma);
}

throughput_estimate throughput_estimator::estimate(const training_config& c) {
  throughput_estimate e;
  double weighted = 0, weights = prior_weight;
  e.distance = 1 << 30;
  int split = 1 << 30;
  for (const auto& m : measured_) {
    const auto& h = history_[m.first];
    if (h.config == c) {
      // Every run of it, as the trend and the cap read them: their
      // geometric mean (the model's prediction is the same for each).
      e.tflops = raw(c).tflops_per_gpu * std::exp(m.log_ratio_sum / m.runs);
      e.sigma = measured_sigma;
      e.measured = true;
      e.nearest = m.first;
      e.distance = 0;
      return e;
    }
    const int d = config_distance(c, h.config);
    if (d < e.distance) {
      e.distance = d;
      e.nearest = m.first;
    }
    split = std::min(split, split_distance(c, h.config));
    // Each run weighs as it would alone: w per run, its deviation summed.
    const double w = neighbour_weight(d);
    weighted += w * m.deviation;
    weights += w * m.runs;
  }
  const double log_ratio = trend_.at(c) + weighted / weights;
  e.tflops = raw(c).tflops_per_gpu * std::exp(log_ratio);
  // Flags of a measured split are known to about a percent. Otherwise a
  // structural key weighs 3 in config_distance: by 4 nothing measured
  // informs this split beyond the cluster-wide bias.
  // A new split departs from the trend as far as the model errs on one
  // split, and the trend itself is uncertain where the runs never went.
  const double model_part = e.nearest < 0 ? model_sigma
                            : split == 0  ? flag_sigma
                                          : std::hypot(model_sigma * std::min(1.0, split / 4.0),
                                                       trend_.sd_at(c));
  e.sigma = std::hypot(measured_sigma, model_part);
  cap_by_measured_runs(c, e);
  if (e.nearest < 0)
    e.distance = 0;
  return e;
}

void throughput_estimator::cap_by_measured_runs(const training_config& c, throughput_estimate& e) {
  for (const auto& m : measured_) {
    const auto& run = history_[m.first];
    if (!only_adds_work(c, run.config) || relieves_memory(c, run))
      continue;
    const double bound = raw(run.config).tflops_per_gpu * std::exp(m.log_ratio_sum / m.runs);
    e.cap_tflops = e.cap_tflops > 0 ? std::min(e.cap_tflops, bound) : bound;
    e.tflops = std::min(e.tflops, bound);
    // Above the estimate, c is known as well as the run that caps it, less
    // the model's error on the flags between them.
    e.sigma = std::min(e.sigma, std::hypot(measured_sigma, flag_sigma));
  }
}

bool throughput_estimator::relieves_memory(const training_config& c, const trial_outcome& run) {
  return run.memory_usage_pct() > memory_bound_pct && int(c.recompute) > int(run.config.recompute)
         && raw(c).peak_memory_mib < raw(run.config).peak_memory_mib;
}

} // namespace paratune
