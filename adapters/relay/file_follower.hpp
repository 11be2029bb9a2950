#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace paratune {

/// Follows a file another program appends to (`paratune-relay --follow`):
/// each call returns the whole lines written since the last one. A file not
/// there yet reads as empty; lines longer than `max_line_bytes` are cut.
class file_follower {
public:
  file_follower(std::string path, size_t max_line_bytes)
    : path_(std::move(path)), max_line_bytes_(max_line_bytes) {}

  std::vector<std::string> new_lines();
  /// The last line when it has no newline yet (the writer ended): once, at the end.
  std::vector<std::string> rest();

private:
  std::string path_;
  size_t max_line_bytes_;
  long long offset_ = 0;
  std::string partial_;
};

} // namespace paratune
