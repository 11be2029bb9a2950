#include "tests/e2e/png_image.hpp"

#include <cstdlib>
#include <cstring>

#include <zlib.h>

namespace paratune::test {

namespace {

uint32_t be32(const std::string& s, size_t at) {
  return uint32_t(uint8_t(s[at])) << 24 | uint32_t(uint8_t(s[at + 1])) << 16
         | uint32_t(uint8_t(s[at + 2])) << 8 | uint32_t(uint8_t(s[at + 3]));
}

int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc)
    return a;
  return pb <= pc ? b : c;
}

// Reverses one scanline's filter in place; `prior` is the row above (zeros
// for the first), `bpp` the bytes per pixel.
bool unfilter(uint8_t type, uint8_t* row, const uint8_t* prior, size_t size, size_t bpp) {
  for (size_t i = 0; i < size; ++i) {
    const int a = i >= bpp ? row[i - bpp] : 0;
    const int b = prior[i];
    const int c = i >= bpp ? prior[i - bpp] : 0;
    switch (type) {
      case 0: break;
      case 1: row[i] = uint8_t(row[i] + a); break;
      case 2: row[i] = uint8_t(row[i] + b); break;
      case 3: row[i] = uint8_t(row[i] + (a + b) / 2); break;
      case 4: row[i] = uint8_t(row[i] + paeth(a, b, c)); break;
      default: return false;
    }
  }
  return true;
}

bool inflate_all(const std::string& in, std::vector<uint8_t>& out, size_t expected) {
  out.resize(expected);
  uLongf size = expected;
  const int rc = uncompress(out.data(), &size, reinterpret_cast<const Bytef*>(in.data()), in.size());
  return rc == Z_OK && size == expected;
}

} // namespace

std::optional<png_image> decode_png(const std::string& bytes, std::string& error) {
  static const char signature[] = "\x89PNG\r\n\x1a\n";
  if (bytes.size() < 8 || std::memcmp(bytes.data(), signature, 8) != 0) {
    error = "not a PNG file";
    return std::nullopt;
  }
  png_image image;
  int colour_type = -1;
  std::string idat;
  for (size_t at = 8; at + 12 <= bytes.size();) {
    const uint32_t length = be32(bytes, at);
    const std::string type = bytes.substr(at + 4, 4);
    if (at + 12 + length > bytes.size()) {
      error = "chunk " + type + " runs past the end of the file";
      return std::nullopt;
    }
    const std::string data = bytes.substr(at + 8, length);
    if (type == "IHDR") {
      image.width = int(be32(data, 0));
      image.height = int(be32(data, 4));
      const int depth = uint8_t(data[8]);
      colour_type = uint8_t(data[9]);
      if (depth != 8 || (colour_type != 2 && colour_type != 6) || data[12] != 0) {
        error = "only 8-bit RGB or RGBA, non-interlaced, is read";
        return std::nullopt;
      }
    } else if (type == "IDAT") {
      idat += data;
    } else if (type == "IEND") {
      break;
    }
    at += 12 + length;
  }
  if (colour_type < 0 || image.width <= 0 || image.height <= 0) {
    error = "no IHDR chunk";
    return std::nullopt;
  }
  const size_t bpp = colour_type == 6 ? 4 : 3;
  const size_t stride = size_t(image.width) * bpp;
  std::vector<uint8_t> raw;
  if (!inflate_all(idat, raw, (stride + 1) * size_t(image.height))) {
    error = "the image data does not inflate to its size";
    return std::nullopt;
  }
  std::vector<uint8_t> zeros(stride, 0);
  image.pixels.reserve(size_t(image.width) * size_t(image.height));
  for (int y = 0; y < image.height; ++y) {
    uint8_t* line = raw.data() + size_t(y) * (stride + 1);
    const uint8_t* prior = y == 0 ? zeros.data() : line - stride;  // the row above, unfiltered
    if (!unfilter(line[0], line + 1, prior, stride, bpp)) {
      error = "unknown filter type " + std::to_string(line[0]) + " on row " + std::to_string(y);
      return std::nullopt;
    }
    for (int x = 0; x < image.width; ++x) {
      const uint8_t* p = line + 1 + size_t(x) * bpp;
      image.pixels.push_back({p[0], p[1], p[2]});
    }
  }
  return image;
}

rgb colour_of(const std::string& hex) {
  const auto v = std::strtoul(hex.c_str() + (hex[0] == '#'), nullptr, 16);
  return {uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
}

int count_pixels(const png_image& image, rgb c, int tolerance) {
  int n = 0;
  for (const auto& p : image.pixels)
    n += std::abs(p.r - c.r) <= tolerance && std::abs(p.g - c.g) <= tolerance
         && std::abs(p.b - c.b) <= tolerance;
  return n;
}

} // namespace paratune::test
