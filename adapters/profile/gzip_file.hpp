#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace paratune {

/// The bytes of a file, gunzipped when they were gzip.
struct file_bytes {
  std::string data;
  /// True when the gzip stream ended early; `data` then holds what could be
  /// inflated, and readers may still salvage a partial result from it.
  bool truncated = false;
};

/// Largest inflated size accepted (guards against decompression bombs).
inline constexpr std::size_t default_max_inflated_bytes = std::size_t{4} << 30;

/// True when `data` starts with the gzip magic bytes 1f 8b.
bool is_gzip(std::string_view data);

/// Inflates gzip data (several concatenated members are allowed). `name`
/// names the source in error messages. Throws input_error on corrupt data or
/// when the output would exceed `max_bytes`; a stream that simply stops
/// early comes back with `truncated` set.
file_bytes gunzip(std::string_view data, std::string_view name,
                  std::size_t max_bytes = default_max_inflated_bytes);

/// Reads a whole file, inflating it when it is gzip (by content, not by
/// name). Throws input_error when the file cannot be read.
file_bytes read_maybe_gzip(const std::filesystem::path& path,
                           std::size_t max_bytes = default_max_inflated_bytes);

/// Reads a whole file as is. Throws input_error when it cannot be read.
std::string read_whole_file(const std::filesystem::path& path);

} // namespace paratune
