#include "adapters/maxtext/maxtext_log_summary.hpp"

#include <fmt/format.h>

#include "adapters/maxtext/step_scoring.hpp"
#include "core/human_units.hpp"

namespace paratune {

namespace {

std::string maxtext_cell(const std::optional<double>& v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : std::string("-");
}

} // namespace

void write_summary(std::ostream& out, const maxtext_log& log) {
  out << "format: maxtext\n";
  out << "lines: " << log.lines << (log.partial ? " (partial: over-long lines were cut)" : "")
      << '\n';
  if (log.parameters_billion)
    out << fmt::format("parameters: {:.3f} billion\n", *log.parameters_billion);
  out << "steps: " << log.steps.size() << " logged\n";
  if (!log.steps.empty())
    out << "       step   elapsed ms  TFLOP/s/dev   tokens/s/dev  phase              line\n";
  for (const auto& s : log.steps)
    out << fmt::format("  {:>9} {:>12} {:>12} {:>14}  {:<18} {}\n", s.step,
                       s.seconds ? fmt::format("{:.1f}", *s.seconds * 1000) : "-",
                       maxtext_cell(s.tflops_per_device, 1),
                       maxtext_cell(s.tokens_per_s_per_device, 1), to_string(s.phase), s.line);
  const auto score = score_of(log.steps);
  if (score.scored > 0)
    out << fmt::format("  scored {} steps: mean {}, {:.1f} TFLOP/s/device, {:.1f} "
                       "tokens/s/device\n",
                       score.scored, human_duration(score.step_ms), score.tflops_per_device,
                       score.tokens_per_s_per_device);
  out << "errors: " << (log.errors.empty() ? "none" : std::to_string(log.errors.size())) << '\n';
  for (const auto& e : log.errors)
    out << "  [" << to_string(e.kind) << "] line " << e.line << ": " << e.message << '\n';
}

} // namespace paratune
