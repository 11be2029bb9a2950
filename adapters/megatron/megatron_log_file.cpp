#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "adapters/megatron/megatron_log_parser.hpp"
#include "core/input_error.hpp"

namespace paratune {

namespace {

struct file_closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

[[noreturn]] void unreadable(const std::string& path, int err) {
  throw input_error("cannot read Megatron-LM log '" + path + "': " + std::strerror(err));
}

} // namespace

megatron_log parse_megatron_log_file(const std::string& path) {
  std::unique_ptr<std::FILE, file_closer> f(std::fopen(path.c_str(), "rb"));
  if (!f) unreadable(path, errno);
  megatron_log_parser parser;
  std::vector<char> buf(1 << 20);
  for (;;) {
    errno = 0;
    const std::size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
    // A directory opens fine on Linux and fails on the first read (EISDIR).
    if (std::ferror(f.get())) unreadable(path, errno ? errno : EIO);
    if (n > 0) parser.feed(std::string_view(buf.data(), n));
    if (n < buf.size()) break;
  }
  parser.finish();
  return parser.log();
}

} // namespace paratune
