#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace paratune {

/// Hands the bytes of the log at `path` ("-": standard input, so that a
/// running job can be piped in) to `on_chunk`, in chunks of up to 1 MiB, as
/// the streaming log readers take them. Throws input_error "cannot read
/// WHAT 'PATH': REASON" when the file cannot be opened or read (a
/// directory opens on Linux and fails on its first read).
void read_log_chunks(const std::string& path, std::string_view what,
                     const std::function<void(std::string_view)>& on_chunk);

} // namespace paratune
