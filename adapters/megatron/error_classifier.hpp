#pragma once

#include <optional>
#include <string_view>

#include "adapters/megatron/megatron_log.hpp"

namespace paratune {

/// The exception class a Python traceback's last line starts with
/// (`torch.cuda.OutOfMemoryError: ...`, bare `AssertionError`,
/// `c10::DistBackendError: ...`), or nothing for other text.
std::optional<std::string_view> exception_type(std::string_view trimmed);

/// What kind of failure `text` (a line without launcher prefix, leading
/// spaces kept) reports, or nothing when it reports none. Signatures, checked in this order:
///   oom            `CUDA out of memory` (old and new PyTorch texts),
///                  `CUDA error: out of memory`, any *OutOfMemoryError
///                  exception line
///   nccl_timeout   the ProcessGroupNCCL watchdog lines of every PyTorch
///                  generation
///   nan            the rerun state machine's `found NaN|Inf in local ...`
///                  and `Spiky loss`
///   config_invalid Megatron's start-up rule texts (`is not divisible by`,
///                  `must be a multiple of`, ...), argparse's
///                  `pretrain_gpt.py: error: ...`, and any AssertionError or
///                  ValueError exception line
///   other          any other exception line
/// Warnings, indented traceback source and non-fatal noise
/// (`UCX ERROR ...`) are not failures.
std::optional<log_error_kind> classify_error_line(std::string_view text);

/// True for the exception torchrun raises when a child failed
/// (ChildFailedError): it repeats a failure the log already reported.
bool is_launcher_failure(std::string_view exception);

} // namespace paratune
