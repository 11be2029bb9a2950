#include "core/job_file_reference.hpp"

#include <filesystem>

namespace paratune {

bool names_a_file(const std::string& ref) {
  return ref.find('/') != std::string::npos || ref.ends_with(".yaml") || ref.ends_with(".yml")
         || ref.ends_with(".json");
}

// Lexical only: the file is read (and its absence reported) by the loader.
std::string resolve_in_job_folder(const std::string& path, const std::string& job_dir) {
  const std::filesystem::path p{path};
  if (path.empty() || job_dir.empty() || p.is_absolute())
    return path;
  return (std::filesystem::path{job_dir} / p).lexically_normal().string();
}

} // namespace paratune
