#include "core/tuning/memory_screen.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "core/tuning/candidate_scorer.hpp"
#include "core/tuning/memory_order.hpp"


namespace paratune {

namespace {

/// Run-to-run variation allowed on top of a measured correction.
constexpr double measured_allowance = 0.01;
/// A neighbour of an OOM this close in predicted memory is refused too.
constexpr double oom_neighbour_ratio = 0.97;
constexpr int oom_neighbour_distance = 3;

} // namespace

int config_distance(const training_config& a, const training_config& b) {
  // Field by field, no strings: this runs for every candidate against every
  // past trial.
  auto w = [](bool differs, int weight) { return differs ? weight : 0; };
  return w(a.tp != b.tp, 3) + w(a.pp != b.pp, 3) + w(a.cp != b.cp, 3) + w(a.ep != b.ep, 3)
         + w(a.mbs != b.mbs, 2) + w(a.recompute != b.recompute, 2) + w(a.vpp != b.vpp, 2)
         + w(a.gbs != b.gbs, 1) + w(a.seq != b.seq, 1) + w(a.sp != b.sp, 1)
         + w(a.recompute_block != b.recompute_block, 1)
         + w(a.recompute_layers != b.recompute_layers, 1) + w(a.dist_opt != b.dist_opt, 1)
         + w(a.overlap_grad != b.overlap_grad, 1) + w(a.overlap_param != b.overlap_param, 1)
         + w(a.fused_ce != b.fused_ce, 1) + w(a.first_pp_layers != b.first_pp_layers, 1)
         + w(a.last_pp_layers != b.last_pp_layers, 1)
         + w(a.pp_account_embedding != b.pp_account_embedding, 1)
         + w(a.pp_account_loss != b.pp_account_loss, 1)
         + w(a.grad_reduce_bf16 != b.grad_reduce_bf16, 1);
}

namespace {

/// The part of a predicted peak that grows with the micro batch.
double varying_memory_mib(const perf_prediction& p) {
  return p.peak.activations_mib + p.peak.logits_mib + p.peak.attention_working_mib;
}

/// Whether two configurations split the model alike: the same parallel
/// degrees, so their fixed memory differs only by what the model computes
/// exactly (weights, gradients, optimizer state).
bool same_layout(const training_config& a, const training_config& b) {
  return a.tp == b.tp && a.pp == b.pp && a.cp == b.cp && a.ep == b.ep && a.vpp == b.vpp;
}

} // namespace

memory_screen::memory_screen(const std::vector<trial_outcome>& history, predictor predict)
  : history_(history), predict_(predict) {
  std::unordered_map<std::string, size_t> fit_of, oom_of;
  auto group = [&](std::vector<config_runs>& groups, std::unordered_map<std::string, size_t>& of,
                   size_t i) -> config_runs& {
    const auto [it, fresh] = of.try_emplace(fingerprint(history[i].config), groups.size());
    if (fresh) {
      const auto& p = predict(history[i].config);
      groups.push_back({int(i), 0, 0, p.peak_memory_mib, varying_memory_mib(p)});
    }
    return groups[it->second];
  };
  std::unordered_map<std::string, bool> ran_seen;
  for (size_t i = 0; i < history.size(); ++i) {
    const auto& h = history[i];
    if (h.ran() && ran_seen.emplace(fingerprint(h.config), true).second)
      ran_.push_back(int(i));
    if (h.ran() && h.peak_memory_mib > 0) {
      auto& g = group(fits_, fit_of, i);
      g.offset_sum += h.peak_memory_mib - g.predicted_peak;
      ++g.count;
    } else if (h.status == trial_status::failed && h.failure == failure_kind::oom) {
      group(ooms_, oom_of, i);
    }
  }
}

namespace {

/// The keys an OOM lesson compares along, in words: "TP 2, PP 1, CP 1, MBS 4,
/// recompute none".
std::string memory_axes_text(const training_config& c) {
  return fmt::format("TP {}, PP {}, CP {}, MBS {}, recompute {}", c.tp, c.pp, c.cp, c.mbs,
                     to_string(c.recompute));
}

} // namespace

std::optional<memory_screen::oom_lesson>
memory_screen::oom_lesson_for(const training_config& c) const {
  if (ooms_.empty())
    return std::nullopt;
  // New evidence outweighs the lesson: a run that needs at least as much
  // memory as `c` fitted.
  for (int i : ran_)
    if (needs_at_least_as_much_memory(history_[size_t(i)].config, c))
      return std::nullopt;
  for (const auto& g : ooms_) {
    const auto& failed = history_[size_t(g.first)];
    if (!needs_at_least_as_much_memory(c, failed.config))
      continue;
    const auto& p = predict_(c);
    oom_lesson l;
    l.trial = trial_number(history_, size_t(g.first));
    l.failed = failed.config;
    l.limit_mib = failed.memory_limit_mib > 0 ? failed.memory_limit_mib : p.memory_limit_mib;
    l.model_peak_mib = p.peak_memory_mib;
    // The failed run needed more than the device, so the model was short by
    // at least limit - its estimate there; `c` needs at least that run's
    // memory, so it is over the device whatever the model says of it.
    l.raised_peak_mib = std::max(p.peak_memory_mib + std::max(0.0, l.limit_mib - g.predicted_peak),
                                 l.limit_mib + 1);
    l.text = fmt::format(
      "known failure: trial {} ran out of memory at {}, and this configuration needs at least as "
      "much memory (the same or a larger micro batch, no more recomputation, the same or smaller "
      "TP, PP and CP); its peak estimate is raised from {:.0f} to at least {:.0f} MiB, over the "
      "{:.0f} MiB device, until a run needing at least as much memory succeeds",
      l.trial, memory_axes_text(l.failed), l.model_peak_mib, l.raised_peak_mib, l.limit_mib);
    return l;
  }
  return std::nullopt;
}

std::optional<memory_screen::error_line>
memory_screen::activation_error_line(const training_config& c) const {
  std::vector<std::pair<double, double>> points; // varying memory, mean error
  for (const auto& g : fits_) {
    const auto& r = history_[g.first].config;
    if (g.count > 0 && same_layout(r, c))
      points.emplace_back(g.predicted_varying, g.offset_sum / g.count);
  }
  if (points.size() < 2)
    return std::nullopt;
  const auto [lo, hi] = std::minmax_element(points.begin(), points.end());
  if (lo->first <= 0 || hi->first < 1.5 * lo->first)
    return std::nullopt; // too narrow a span to tell a slope from noise
  double mx = 0, my = 0;
  for (const auto& [x, y] : points) {
    mx += x;
    my += y;
  }
  mx /= double(points.size());
  my /= double(points.size());
  double sxy = 0, sxx = 0;
  for (const auto& [x, y] : points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) * (x - mx);
  }
  const double slope = std::clamp(sxy / sxx, -0.5, 0.5);
  return error_line{my - slope * mx, slope};
}

std::pair<double, bool> memory_screen::corrected_peak(const training_config& c,
                                                      const perf_prediction& p) const {
  if (const auto lesson = oom_lesson_for(c))
    return {std::max(lesson->raised_peak_mib, p.peak_memory_mib), true};
  // The nearest runs' offset (the configuration's own when it ran).
  int best = 1 << 30;
  double sum = 0;
  int n = 0;
  for (const auto& g : fits_) {
    const int d = config_distance(c, history_[g.first].config);
    if (d > best)
      continue;
    if (d < best) {
      best = d;
      sum = 0;
      n = 0;
    }
    sum += g.offset_sum;
    n += g.count;
  }
  const double limit = p.memory_limit_mib;
  // One that did not run, of a layout whose runs tell how the error grows
  // with the micro batch: the line's.
  if (best != 0)
    if (const auto line = activation_error_line(c)) {
      const double error = std::clamp(line->fixed + line->per_mib * varying_memory_mib(p),
                                      -0.5 * p.peak_memory_mib, 0.2 * limit);
      return {p.peak_memory_mib + error, true};
    }
  if (n == 0)
    return {p.peak_memory_mib, false};
  const double offset = std::clamp(sum / n, -0.1 * limit, 0.2 * limit);
  return {p.peak_memory_mib + offset, true};
}

std::optional<std::string> memory_screen::check(const training_config& c,
                                                const perf_prediction& p) const {
  if (auto lesson = oom_lesson_for(c))
    return std::move(lesson->text);
  char buf[200];
  for (const auto& g : ooms_) {
    const size_t i = size_t(g.first);
    if (config_distance(c, history_[i].config) > oom_neighbour_distance)
      continue;
    const double failed_need = g.predicted_peak;
    if (p.peak_memory_mib >= oom_neighbour_ratio * failed_need) {
      std::snprintf(buf, sizeof buf,
                    "memory screen: predicted peak %.0f MiB is close to trial %zu's %.0f MiB, "
                    "which ran out of memory",
                    p.peak_memory_mib, size_t(trial_number(history_, i)), failed_need);
      return std::string(buf);
    }
  }
  const auto [peak, measured] = corrected_peak(c, p);
  const double limit = p.memory_limit_mib;
  if (!measured) {
    // The model alone refuses what cannot fit even at the low end of its
    // measured error, and what it predicts over the device: such a run is
    // more likely than not to run out of memory (issue 45: a first trial at
    // a 94% risk was a trial lost). A tight configuration at or below the
    // device is for a run to decide.
    if (p.memory == memory_verdict::does_not_fit)
      return "memory screen: " + describe_memory(peak, limit, p.memory_band);
    if (limit > 0 && peak > limit)
      return fmt::format("memory screen: predicted peak {:.0f} MiB is over the {:.0f} MiB of "
                         "the device ({:.0f}% risk of running out of memory)",
                         peak, limit, 100 * oom_risk(peak, limit, false));
    return std::nullopt;
  }
  const double need = peak * (1.0 + measured_allowance);
  if (limit <= 0 || need <= limit)
    return std::nullopt;
  std::snprintf(buf, sizeof buf,
                "memory screen: predicted peak %.0f MiB (corrected by this session's measured "
                "runs) plus %.0f%% exceeds %.0f MiB",
                peak, 100 * measured_allowance, limit);
  return std::string(buf);
}

std::optional<std::string> screen_before_any_run(const training_config& c,
                                                 const perf_prediction& p) {
  // With no history the screen never asks its predictor (it prices past
  // trials only), and check() changes nothing: one screen serves every call.
  static const std::vector<trial_outcome> none;
  static const memory_screen screen(none, [](const training_config&) -> const perf_prediction& {
    throw std::logic_error("memory screen: a session with no trials has none to predict");
  });
  return screen.check(c, p);
}

} // namespace paratune
