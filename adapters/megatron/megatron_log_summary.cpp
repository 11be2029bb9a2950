#include "adapters/megatron/megatron_log_summary.hpp"

#include <array>
#include <cstdio>
#include <string>

#include "core/human_units.hpp"

namespace paratune {

namespace {

// The arguments that decide parallel layout, batch and memory.
constexpr std::array<const char*, 18> key_args = {
  "world_size", "tensor_model_parallel_size", "pipeline_model_parallel_size",
  "context_parallel_size", "expert_model_parallel_size",
  "virtual_pipeline_model_parallel_size", "data_parallel_size", "sequence_parallel",
  "micro_batch_size", "global_batch_size", "seq_length", "num_layers", "hidden_size",
  "num_attention_heads", "params_dtype", "recompute_granularity",
  "use_distributed_optimizer", "train_iters"};

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string or_dash(const std::optional<double>& v, int decimals) {
  return v ? fixed(*v, decimals) : "-";
}

std::string or_dash(const std::optional<int>& v) { return v ? std::to_string(*v) : "-"; }

std::string padded(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

void write_layout(std::ostream& out, const megatron_log& log) {
  if (log.layout) {
    const auto& l = *log.layout;
    out << "layout: world size " << or_dash(l.world_size) << ", TP " << or_dash(l.tensor_parallel)
        << ", PP " << or_dash(l.pipeline_parallel) << ", DP " << or_dash(l.data_parallel)
        << ", CP " << or_dash(l.context_parallel) << '\n';
  }
  if (log.num_microbatches) out << "micro-batches per iteration: " << *log.num_microbatches << '\n';
  if (log.args.empty()) return;
  out << "arguments (" << log.args.size() << " in dump):\n";
  for (const char* name : key_args)
    if (const auto it = log.args.find(name); it != log.args.end())
      out << "  " << name << " = " << it->second << '\n';
}

void write_iterations(std::ostream& out, const megatron_log& log) {
  out << "iterations: " << log.iterations.size() << " logged\n";
  if (log.iterations.empty()) return;
  // Times in the unit that reads (1.54 s, 25.6 min); --json keeps milliseconds.
  out << "  iteration      elapsed  TFLOP/s/GPU  line\n";
  double sum_ms = 0;
  for (const auto& r : log.iterations) {
    out << "  " << padded(std::to_string(r.iteration), 9) << padded(human_duration(r.elapsed_ms), 13)
        << padded(or_dash(r.tflops_per_gpu, 1), 13) << "  " << r.line << '\n';
    sum_ms += r.elapsed_ms;
  }
  out << "  mean elapsed " << human_duration(sum_ms / static_cast<double>(log.iterations.size()))
      << " over " << log.iterations.size() << " logged intervals\n";
}

void write_memory(std::ostream& out, const megatron_log& log) {
  out << "memory reports (MiB): " << log.memory.size() << '\n';
  for (const auto& m : log.memory)
    out << "  rank " << m.rank << " after " << m.iteration << ": allocated "
        << fixed(m.allocated_mib, 1) << ", max allocated " << fixed(m.max_allocated_mib, 1)
        << ", reserved " << fixed(m.reserved_mib, 1) << ", max reserved "
        << fixed(m.max_reserved_mib, 1) << '\n';
}

void write_theory(std::ostream& out, const theoretical_memory& t) {
  if (!t.weight_and_optimizer_mb && !t.params_billion && !t.unsupported) return;
  out << "theoretical memory: weight and optimizer " << or_dash(t.weight_and_optimizer_mb, 2)
      << " MB, activation " << or_dash(t.activation_mb, 2) << " MB, total "
      << or_dash(t.total_mb, 2) << " MB; parameters " << or_dash(t.params_billion, 2)
      << " B, most loaded shard " << or_dash(t.most_loaded_shard_billion, 4) << " B"
      << (t.unsupported ? " (not supported for this model)" : "") << '\n';
}

void write_errors(std::ostream& out, const megatron_log& log) {
  out << "errors: " << (log.errors.empty() ? "none" : std::to_string(log.errors.size())) << '\n';
  for (const auto& e : log.errors)
    out << "  [" << to_string(e.kind) << "] line " << e.line << ": " << e.message << '\n';
}

} // namespace

void write_summary(std::ostream& out, const megatron_log& log) {
  out << "lines: " << log.lines << (log.partial ? " (partial: over-long lines were cut)" : "")
      << '\n';
  write_layout(out, log);
  write_iterations(out, log);
  write_memory(out, log);
  write_theory(out, log.theory);
  if (log.exit_reason) out << "exit: " << *log.exit_reason << '\n';
  write_errors(out, log);
}

} // namespace paratune
