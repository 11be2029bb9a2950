#include "adapters/profile/gzip_file.hpp"

#include "core/input_error.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace paratune {

namespace {

std::string zlib_message(const z_stream& zs, int rc) {
  if (zs.msg != nullptr)
    return zs.msg;
  return "zlib error " + std::to_string(rc);
}

// Inflates one gzip member starting at `in`; returns the bytes consumed.
// Sets `ended` when the member's trailer was reached.
std::size_t inflate_member(std::string_view in, std::string& out, std::string_view name,
                           std::size_t max_bytes, bool& ended) {
  z_stream zs{};
  // 15 + 16: gzip wrapper only, so a stray zlib/deflate stream is an error.
  if (inflateInit2(&zs, 15 + 16) != Z_OK)
    throw input_error(std::string(name) + ": cannot initialise zlib");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  ended = false;
  char buf[1 << 16];
  while (true) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    int rc = inflate(&zs, Z_NO_FLUSH);
    std::size_t produced = sizeof buf - zs.avail_out;
    if (out.size() + produced > max_bytes) {
      inflateEnd(&zs);
      throw input_error(std::string(name) + ": inflated size exceeds "
                        + std::to_string(max_bytes) + " bytes");
    }
    out.append(buf, produced);
    if (rc == Z_STREAM_END) {
      ended = true;
      break;
    }
    if (rc == Z_BUF_ERROR && zs.avail_in == 0)
      break;  // input ran out mid-stream: truncated
    if (rc != Z_OK) {
      std::string msg = zlib_message(zs, rc);
      inflateEnd(&zs);
      throw input_error(std::string(name) + ": corrupt gzip data (" + msg + ")");
    }
  }
  std::size_t used = in.size() - zs.avail_in;
  inflateEnd(&zs);
  return used;
}

} // namespace

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f
         && static_cast<unsigned char>(data[1]) == 0x8b;
}

file_bytes gunzip(std::string_view data, std::string_view name, std::size_t max_bytes) {
  if (data.size() > 0xffffffffu)
    throw input_error(std::string(name) + ": gzip input larger than 4 GiB is not supported");
  file_bytes result;
  result.data.reserve(data.size() * 4);
  while (!data.empty()) {
    bool ended = false;
    std::size_t used = inflate_member(data, result.data, name, max_bytes, ended);
    if (!ended) {
      result.truncated = true;
      break;
    }
    data.remove_prefix(used);
    // Members may be followed by zero padding; anything else must be another member.
    while (!data.empty() && data.front() == '\0')
      data.remove_prefix(1);
    if (!data.empty() && !is_gzip(data))
      throw input_error(std::string(name) + ": trailing garbage after gzip data");
  }
  return result;
}

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw input_error(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  std::string data;
  in.seekg(0, std::ios::end);
  auto size = in.tellg();
  if (size > 0) {
    data.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(data.data(), size);
  }
  if (!in && !in.eof())
    throw input_error(path.string() + ": read failed");
  return data;
}

file_bytes read_maybe_gzip(const std::filesystem::path& path, std::size_t max_bytes) {
  std::string raw = read_whole_file(path);
  if (!is_gzip(raw))
    return {std::move(raw), false};
  return gunzip(raw, path.string(), max_bytes);
}

} // namespace paratune
