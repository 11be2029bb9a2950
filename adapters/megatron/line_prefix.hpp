#pragma once

#include <optional>
#include <string_view>

namespace paratune {

/// Removes what launchers and loggers put before Megatron's own text, so
/// that the same line reads the same however the job was started:
///   torchrun --tee / --role:  `[default7]:`, `[lrdn3321:3]:`
///   PyTorch ≥ 2.2:            `[rank3]:`
///   srun --label:             `3: `
///   Python logging (0.16+):   `INFO:megatron.core.timers:`
///   NeMo:                     `[NeMo I 2024-05-01 10:00:00 file:12] `
/// Several may be stacked; all are removed. Leading spaces after the last
/// prefix are kept: they are significant (argument and timer lines).
std::string_view strip_line_prefixes(std::string_view line);

/// If `s` (after spaces) starts with a `[YYYY-mm-dd HH:MM:SS(.ffffff)]`
/// timestamp, removes it and the spaces after it and returns its text.
std::optional<std::string_view> take_timestamp(std::string_view& s);

} // namespace paratune
