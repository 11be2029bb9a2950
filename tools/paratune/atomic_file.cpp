#include "tools/paratune/atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace paratune::cli {

namespace {

std::string failure(const std::string& path, const char* step, int err) {
  return "cannot write " + path + ": " + step + ": " + std::strerror(err);
}

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += size_t(n);
  }
  return true;
}

} // namespace

std::optional<std::string> write_file_atomically(const std::string& path, const std::string& text) {
  const auto target = std::filesystem::path(path);
  // Beside the target: a rename within one directory is atomic.
  auto pattern = (target.parent_path() / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0)
    return failure(path, "creating a temporary file beside it", errno);
  const std::string temp(name.data());
  const auto abandon = [&](const char* step) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    return failure(path, step, err);
  };
  if (!write_all(fd, text))
    return abandon("writing");
  if (::fchmod(fd, 0644) != 0)
    return abandon("setting its mode");
  if (::fsync(fd) != 0)
    return abandon("flushing");
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return failure(path, "closing", err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return failure(path, "renaming the temporary file onto it", err);
  }
  return std::nullopt;
}

} // namespace paratune::cli
