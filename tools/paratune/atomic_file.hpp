#pragma once

#include <optional>
#include <string>

namespace paratune::cli {

/// Writes `text` to `path` whole or not at all: into a temporary file
/// beside it, flushed to disk, then renamed over `path`. On failure the
/// temporary file is removed, `path` is untouched, and the error names the
/// path and the reason; none on success.
std::optional<std::string> write_file_atomically(const std::string& path, const std::string& text);

} // namespace paratune::cli
