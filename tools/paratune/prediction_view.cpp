#include "tools/paratune/prediction_view.hpp"

#include <ostream>
#include <string>

#include <fmt/format.h>

#include "core/human_units.hpp"
#include "core/model_flops_utilization.hpp"

namespace paratune::cli {

namespace {

using nlohmann::json;

// The time parts in breakdown order, with their JSON and limiting-factor name.
struct time_part {
  const char* name;
  double time_breakdown::*field;
  const char* label;
};

constexpr time_part time_parts[] = {
  {"compute", &time_breakdown::compute_s, "compute"},
  {"recompute", &time_breakdown::recompute_s, "recompute"},
  {"tp_comm", &time_breakdown::tp_comm_s, "TP/SP communication (exposed)"},
  {"dp_comm", &time_breakdown::dp_comm_s, "DP communication (exposed)"},
  {"pp_comm", &time_breakdown::pp_comm_s, "pipeline p2p (exposed)"},
  {"ep_comm", &time_breakdown::ep_comm_s, "expert all-to-all (exposed)"},
  {"cp_comm", &time_breakdown::cp_comm_s, "context-parallel ring (exposed)"},
  {"bubble", &time_breakdown::bubble_s, "pipeline bubble"},
  {"optimizer", &time_breakdown::optimizer_s, "optimizer step"},
  {"other", &time_breakdown::other_s, "other (fixed overhead, stragglers)"},
};

struct memory_part {
  const char* name;
  double memory_breakdown::*field;
};

constexpr memory_part memory_parts[] = {
  {"weights", &memory_breakdown::weights_mib},
  {"gradients", &memory_breakdown::gradients_mib},
  {"optimizer", &memory_breakdown::optimizer_mib},
  {"activations", &memory_breakdown::activations_mib},
  {"logits", &memory_breakdown::logits_mib},
  {"attention_working", &memory_breakdown::attention_working_mib},
  {"overhead", &memory_breakdown::overhead_mib},
};

// The columns align numbers with an explicit '>': fmt 9 would left-align inf
// and nan in a field, where printf, which these tables were written with, did not.
void write_throughput(std::ostream& out, const perf_prediction& p) {
  out << "throughput\n"
      << fmt::format("  iteration time     {:>10}\n", human_duration(1000 * p.iteration_time_s))
      << fmt::format("  TFLOP/s per GPU    {:>10.1f}   (model FLOPs: Megatron-LM's count, "
                     "attention whole, no recomputation)\n", p.tflops_per_gpu)
      << fmt::format("  hardware TFLOP/s   {:>10.1f}   (model FLOPs plus recomputation)\n",
                     p.hardware_tflops_per_gpu)
      << fmt::format("  MFU                {:>10}   (model TFLOP/s over the {:.0f} TFLOP/s bf16 "
                     "peak)\n", mfu_text(p.mfu), p.peak_tflops)
      << fmt::format("  HFU                {:>10}   (hardware TFLOP/s over the same peak)\n",
                     mfu_text(p.hfu))
      << fmt::format("  tokens/s per GPU   {:>10.0f}\n", p.tokens_per_s_per_gpu);
  if (p.mfu > 1)
    out << fmt::format("  MFU passes 100% because Megatron-LM's count takes attention whole; "
                       "the kernels run {} of the peak\n", mfu_text(p.kernel_utilization));
}

void write_memory(std::ostream& out, const perf_prediction& p) {
  out << fmt::format("memory of the most loaded GPU (pipeline stage {} of {})\n", p.peak.stage,
                     p.stages.size());
  for (const auto& part : memory_parts) {
    const double mib = p.peak.*part.field;
    // Only a stack without flash attention has this transient: no row of
    // zeros for everyone else.
    if (part.field == &memory_breakdown::attention_working_mib && mib == 0)
      continue;
    out << fmt::format("  {:<17} {:>10.0f} MiB {:>5.1f}%\n", part.name, mib,
                       p.peak.total_mib > 0 ? 100 * mib / p.peak.total_mib : 0.0);
  }
  out << fmt::format("  {:<17} {:>10.0f} MiB of {:.0f} MiB\n", "total", p.peak_memory_mib,
                     p.memory_limit_mib);
  if (p.stages.size() > 1) {
    out << "  per stage (MiB):";
    for (const auto& s : p.stages)
      out << fmt::format(" {}:{:.0f}", s.stage, s.total_mib);
    out << '\n';
  }
  out << "memory: " << describe_memory(p.peak_memory_mib, p.memory_limit_mib, p.memory_band)
      << '\n';
}

void write_time(std::ostream& out, const perf_prediction& p) {
  out << "time per iteration\n";
  for (const auto& part : time_parts) {
    const double s = p.time.*part.field;
    out << fmt::format("  {:<36} {:>9.3f} s {:>5.1f}%\n", part.label, s,
                       p.iteration_time_s > 0 ? 100 * s / p.iteration_time_s : 0.0);
  }
  out << "limiting factor: " << p.limiting_factor << '\n';
}

} // namespace

json config_json(const training_config& c) {
  json j = json::object();
  for (const auto& [key, text] : to_map(c)) {
    if (text == "true" || text == "false")
      j[key] = text == "true";
    else if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos)
      j[key] = std::stoi(text);
    else
      j[key] = text;
  }
  return j;
}

json memory_json(const memory_breakdown& m) {
  json j = {{"stage", m.stage}};
  for (const auto& part : memory_parts)
    j[std::string(part.name) + "_mib"] = m.*part.field;
  j["total_mib"] = m.total_mib;
  return j;
}

json time_json(const time_breakdown& t) {
  json j = json::object();
  for (const auto& part : time_parts)
    j[std::string(part.name) + "_s"] = t.*part.field;
  return j;
}

json prediction_json(const perf_prediction& p) {
  json stages = json::array();
  for (const auto& s : p.stages)
    stages.push_back(memory_json(s));
  return {{"iteration_time_s", p.iteration_time_s},
          {"tflops_per_gpu", p.tflops_per_gpu},
          {"hardware_tflops_per_gpu", p.hardware_tflops_per_gpu},
          {"mfu", p.mfu},
          {"mfu_causal", p.mfu_causal},
          {"hfu", p.hfu},
          {"mfu_peak_tflops", p.peak_tflops},
          {"kernel_utilization", p.kernel_utilization},
          {"tokens_per_s_per_gpu", p.tokens_per_s_per_gpu},
          {"peak_memory_mib", p.peak_memory_mib},
          {"memory_limit_mib", p.memory_limit_mib},
          {"memory_verdict", memory_verdict_words(p.memory)},
          {"memory_error", {{"low", p.memory_band.low}, {"high", p.memory_band.high},
                            {"runs", p.memory_band.runs}}},
          {"fits", p.fits},
          {"memory", {{"peak", memory_json(p.peak)}, {"stages", stages}}},
          {"time", time_json(p.time)},
          {"limiting_factor", p.limiting_factor}};
}

void write_prediction(std::ostream& out, const perf_prediction& p) {
  write_throughput(out, p);
  out << '\n';
  write_memory(out, p);
  out << '\n';
  write_time(out, p);
}

} // namespace paratune::cli
