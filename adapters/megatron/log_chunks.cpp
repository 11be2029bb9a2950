#include "adapters/megatron/log_chunks.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/input_error.hpp"

namespace paratune {

namespace {

struct log_file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

[[noreturn]] void unreadable(std::string_view what, const std::string& path, int err) {
  throw input_error("cannot read " + std::string(what) + " '" + path + "': " + std::strerror(err));
}

} // namespace

void read_log_chunks(const std::string& path, std::string_view what,
                     const std::function<void(std::string_view)>& on_chunk) {
  std::unique_ptr<std::FILE, log_file_closer> owned;
  std::FILE* in = stdin;
  if (path != "-") {
    owned.reset(std::fopen(path.c_str(), "rb"));
    if (!owned)
      unreadable(what, path, errno);
    in = owned.get();
  }
  std::vector<char> buf(1 << 20);
  for (;;) {
    errno = 0;
    const std::size_t n = std::fread(buf.data(), 1, buf.size(), in);
    if (std::ferror(in))
      unreadable(what, path, errno ? errno : EIO);
    if (n > 0)
      on_chunk(std::string_view(buf.data(), n));
    if (n < buf.size())
      break;
  }
}

} // namespace paratune
