#pragma once

// A PNG decoder for the screenshots headless Chromium writes: 8-bit RGB or
// RGBA, not interlaced, every scanline filter (none, sub, up, average,
// Paeth). Enough to count a page's pixels of a colour; anything else is
// refused with the reason.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace paratune::test {

struct rgb {
  uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(const rgb&, const rgb&) = default;
};

struct png_image {
  int width = 0, height = 0;
  std::vector<rgb> pixels;  ///< row by row; alpha dropped (screenshots are opaque)
};

/// The decoded image, or none with `error` saying what was not understood.
std::optional<png_image> decode_png(const std::string& bytes, std::string& error);

/// "#1f77b4" as a colour.
rgb colour_of(const std::string& hex);

/// Pixels within `tolerance` of `c` in each channel.
int count_pixels(const png_image& image, rgb c, int tolerance = 0);

} // namespace paratune::test
