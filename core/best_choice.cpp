#include "core/best_choice.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "core/training_config.hpp"

namespace paratune {

bool within_noise(double a, double b) {
  const double top = std::max(a, b);
  return top > 0 && std::min(a, b) >= top * (1 - throughput_noise);
}

int non_default_keys(const std::map<std::string, std::string>& config) {
  static const training_config defaults{};
  int n = 0;
  for (const auto& [key, value] : config) {
    if (!find_config_key(key)) {
      ++n;
      continue;
    }
    // The config's text may spell a value another way ("sel"): compare the
    // parsed values, and count a value that does not parse as off default.
    training_config c;
    try {
      set_value(c, key, value);
    } catch (const std::exception&) {
      ++n;
      continue;
    }
    n += get_value(c, key) != get_value(defaults, key);
  }
  return n;
}

namespace {

/// Headroom as the rule compares it: the device's memory less the peak
/// when every tied trial reports both, else the peak's negative (the same
/// device for all: less peak, more headroom); none when a peak is missing.
std::optional<std::vector<double>> headrooms(const std::vector<const measured_option*>& set) {
  bool limits = true;
  for (const auto* o : set) {
    if (o->peak_mib <= 0)
      return std::nullopt;
    limits = limits && o->limit_mib > 0;
  }
  std::vector<double> out;
  for (const auto* o : set)
    out.push_back(limits ? o->limit_mib - o->peak_mib : -o->peak_mib);
  return out;
}

/// The rule's winner among `set` (not empty): the most headroom (within
/// headroom_resolution_mib of the most), then the fewest keys off default,
/// then the higher measurement, then the earlier trial.
const measured_option* winner(std::vector<const measured_option*> set) {
  if (const auto h = headrooms(set)) {
    const double most = *std::max_element(h->begin(), h->end());
    std::vector<const measured_option*> kept;
    for (size_t i = 0; i < set.size(); ++i)
      if ((*h)[i] >= most - headroom_resolution_mib)
        kept.push_back(set[i]);
    set = kept;
  }
  return *std::min_element(set.begin(), set.end(), [](const auto* a, const auto* b) {
    if (a->non_default != b->non_default)
      return a->non_default < b->non_default;
    if (a->tflops != b->tflops)
      return a->tflops > b->tflops;
    return a->trial < b->trial;
  });
}

std::string tflops_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string keys_text(int n) {
  return std::to_string(n) + (n == 1 ? " key fewer off its default" : " keys fewer off their defaults");
}

} // namespace

best_choice choose_best(const std::vector<measured_option>& options) {
  best_choice c;
  const measured_option* fastest = nullptr;
  for (const auto& o : options)
    if (!fastest || o.tflops > fastest->tflops
        || (o.tflops == fastest->tflops && o.trial < fastest->trial))
      fastest = &o;
  if (!fastest)
    return c;
  c.trial = c.fastest = fastest->trial;
  std::vector<const measured_option*> tied;
  for (const auto& o : options)
    if (within_noise(o.tflops, fastest->tflops))
      tied.push_back(&o);
  if (tied.size() < 2)
    return c;
  std::sort(tied.begin(), tied.end(), [](auto* a, auto* b) { return a->trial < b->trial; });
  for (const auto* o : tied)
    c.tied.push_back(o->trial);
  const auto* chosen = winner(tied);
  std::vector<const measured_option*> rest;
  for (const auto* o : tied)
    if (o != chosen)
      rest.push_back(o);
  // What the chosen trial is set against: the highest measurement when it
  // is not that one (why not the fastest?), else the rule's second.
  const auto* runner = chosen->trial != fastest->trial ? fastest : winner(rest);
  c.trial = chosen->trial;
  c.runner_up = runner->trial;
  c.fewer_keys = runner->non_default - chosen->non_default;
  if (const auto h = headrooms({chosen, runner})) {
    c.headroom_known = true;
    c.headroom_gain_mib = (*h)[0] - (*h)[1];
  }
  if (c.headroom_gain_mib >= headroom_resolution_mib)
    c.by = tie_break::headroom;
  else if (c.fewer_keys > 0)
    c.by = tie_break::simpler;
  else if (chosen->tflops > runner->tflops)
    c.by = tie_break::throughput;
  else if (c.headroom_gain_mib > 0)
    c.by = tie_break::headroom;
  else
    c.by = tie_break::earlier;
  return c;
}

std::string tie_sentence(const best_choice& c, const std::vector<measured_option>& options) {
  if (c.tied.size() < 2)
    return "";
  const auto tflops_of = [&](int trial) {
    for (const auto& o : options)
      if (o.trial == trial)
        return o.tflops;
    return 0.0;
  };
  std::string trials, figures;
  for (size_t i = 0; i < c.tied.size(); ++i) {
    const char* sep = i == 0 ? "" : i + 1 == c.tied.size() ? " and " : ", ";
    trials += sep + std::to_string(c.tied[i]);
    figures += (i == 0 ? "" : c.tied.size() == 2 ? " vs " : sep) + tflops_text(tflops_of(c.tied[i]));
  }
  char noise[16];
  std::snprintf(noise, sizeof noise, "%g%%", 100 * throughput_noise);
  std::string out = "Trials " + trials + " measured within noise of each other (" + figures
                    + " TFLOP/s/GPU, within " + noise + "); trial " + std::to_string(c.trial)
                    + " is chosen ";
  const auto runner = "trial " + std::to_string(c.runner_up);
  const std::string same_memory =
    c.headroom_known ? "at the same memory headroom" : "their peak memory not reported";
  switch (c.by) {
    case tie_break::headroom: {
      char gib[32];
      std::snprintf(gib, sizeof gib, "%.1f GiB", c.headroom_gain_mib / 1024);
      out += "for " + std::string(gib) + " more memory headroom than " + runner
             + (c.runner_up == c.fastest ? ", the highest measurement" : "");
      break;
    }
    case tie_break::simpler:
      out += "as the simpler configuration: " + keys_text(c.fewer_keys) + " than " + runner
             + ", " + same_memory;
      break;
    case tie_break::throughput:
      out += "for its higher measurement, " + same_memory + " and as simple as " + runner;
      break;
    case tie_break::earlier:
    case tie_break::none:
      out += "as the earlier trial: " + runner + " measured the same, " + same_memory
             + " and as simple";
      break;
  }
  return out + ".";
}

} // namespace paratune
