#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace paratune::big_endian {

// Fixed-width big-endian integers make RocksDB's bytewise key order equal
// numeric order (kvrocks' EncodeFixed idiom).

inline void put64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}

inline void put32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}

inline uint32_t get32(std::string_view in) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4 && i < in.size(); ++i)
    v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}

inline uint64_t get64(std::string_view in) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8 && i < in.size(); ++i)
    v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}

inline std::string encode64(uint64_t v) {
  std::string s;
  put64(s, v);
  return s;
}

} // namespace paratune::big_endian
