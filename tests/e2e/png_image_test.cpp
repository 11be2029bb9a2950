// The screenshot decoder on PNGs written here with every scanline filter.

#include <cstdlib>

#include <gtest/gtest.h>
#include <zlib.h>

#include "tests/e2e/png_image.hpp"

namespace paratune {
namespace {

std::string put_be32(uint32_t v) {
  return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

std::string chunk(const std::string& type, const std::string& data) {
  const std::string body = type + data;
  const auto crc = crc32(0, reinterpret_cast<const Bytef*>(body.data()), uInt(body.size()));
  return put_be32(uint32_t(data.size())) + body + put_be32(uint32_t(crc));
}

int expected_paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// Row y of the image filtered with filter type y % 5.
std::string png_of(const std::vector<std::vector<uint8_t>>& rows, size_t bpp) {
  std::string raw;
  for (size_t y = 0; y < rows.size(); ++y) {
    const int type = int(y % 5);
    raw += char(type);
    for (size_t i = 0; i < rows[y].size(); ++i) {
      const int x = rows[y][i];
      const int a = i >= bpp ? rows[y][i - bpp] : 0;
      const int b = y > 0 ? rows[y - 1][i] : 0;
      const int c = y > 0 && i >= bpp ? rows[y - 1][i - bpp] : 0;
      const int pred[] = {0, a, b, (a + b) / 2, expected_paeth(a, b, c)};
      raw += char(uint8_t(x - pred[type]));
    }
  }
  uLongf size = compressBound(uLong(raw.size()));
  std::string z(size, '\0');
  compress(reinterpret_cast<Bytef*>(z.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
           uLong(raw.size()));
  z.resize(size);
  const uint32_t width = uint32_t(rows[0].size() / bpp);
  std::string ihdr = put_be32(width) + put_be32(uint32_t(rows.size()));
  ihdr += {char(8), char(bpp == 4 ? 6 : 2), 0, 0, 0};
  return std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", ihdr) + chunk("IDAT", z)
         + chunk("IEND", "");
}

std::vector<std::vector<uint8_t>> gradient(int width, int height, size_t bpp) {
  std::vector<std::vector<uint8_t>> rows(height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (size_t ch = 0; ch < bpp; ++ch)
        rows[y].push_back(uint8_t(x * 37 + y * 91 + int(ch) * 53 + (x * y) % 7));
  return rows;
}

TEST(PngImage, DecodesEveryFilterTypeInRgbAndRgba) {
  for (size_t bpp : {3u, 4u}) {
    const auto rows = gradient(7, 10, bpp);  // two rows of each filter type
    std::string error;
    const auto image = test::decode_png(png_of(rows, bpp), error);
    ASSERT_TRUE(image) << error;
    EXPECT_EQ(image->width, 7);
    EXPECT_EQ(image->height, 10);
    for (int y = 0; y < 10; ++y)
      for (int x = 0; x < 7; ++x) {
        const auto& p = image->pixels[size_t(y * 7 + x)];
        EXPECT_EQ(p, (test::rgb{rows[y][x * bpp], rows[y][x * bpp + 1], rows[y][x * bpp + 2]}))
          << "bpp " << bpp << " at " << x << "," << y;
      }
  }
}

TEST(PngImage, CountsAColourAndRefusesWhatItDoesNotRead) {
  std::vector<std::vector<uint8_t>> rows = {{0x1f, 0x77, 0xb4, 0x1f, 0x77, 0xb5, 0, 0, 0}};
  std::string error;
  const auto image = test::decode_png(png_of(rows, 3), error);
  ASSERT_TRUE(image) << error;
  EXPECT_EQ(test::count_pixels(*image, test::colour_of("#1f77b4")), 1);
  EXPECT_EQ(test::count_pixels(*image, test::colour_of("#1f77b4"), 1), 2);
  EXPECT_FALSE(test::decode_png("GIF89a", error));
  EXPECT_EQ(error, "not a PNG file");
}

} // namespace
} // namespace paratune
