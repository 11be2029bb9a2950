// Cloud TPU accelerator types and the slice shapes they get. Shapes follow
// the Cloud TPU documentation's topology tables: v5e/v6e slices are 2D
// (16x16 at most), v4/v5p slices 3D, built from 4x4x4 cubes from 64 chips
// up (v5p-128 is 4x4x4, v5p-256 4x4x8, v4-384 4x4x12, v5p-1024 8x8x8).
#include "core/tpu/tpu_accelerator.hpp"

#include <array>
#include <limits>
#include <string>

#include "core/input_error.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

struct generation_row {
  tpu_generation generation;
  const char* prefix;      ///< as the accelerator type writes it
  int cores_per_chip;      ///< what the number after the '-' counts
  int max_chips;           ///< the largest slice
  int dims;                ///< torus dimensions
};

constexpr std::array<generation_row, 5> generations{{
    {tpu_generation::v4, "v4", 2, 4096, 3},
    {tpu_generation::v5e, "v5e", 1, 256, 2},
    {tpu_generation::v5e, "v5litepod", 1, 256, 2},
    {tpu_generation::v5p, "v5p", 2, 8960, 3},
    {tpu_generation::v6e, "v6e", 1, 256, 2},
}};

const generation_row* find_generation(std::string_view prefix) {
  for (const auto& g : generations)
    if (prefix == g.prefix)
      return &g;
  return nullptr;
}

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

int log2_of(int n) {
  int k = 0;
  while ((1 << k) < n)
    ++k;
  return k;
}

// 2D: the squarest power-of-two rectangle (8 -> 2x4, 128 -> 8x16).
std::vector<int> shape_2d(int chips) {
  const int k = log2_of(chips);
  return {1 << (k / 2), 1 << (k - k / 2)};
}

// 3D below a cube: 4 -> 2x2x1, 8 -> 2x2x2, 16 -> 2x2x4, 32 -> 2x4x4.
// From 64 chips: sides that are multiples of 4, as cubic as possible.
std::vector<int> shape_3d(int chips) {
  if (chips < 64) {
    if (chips <= 4)
      return {std::min(chips, 2), std::max(1, chips / 2), 1};
    const int k = log2_of(chips);  // 3, 4, 5
    std::array<int, 3> d{2, 2, 2};
    for (int i = 3; i < k; ++i)
      d[2 - (i - 3)] *= 2;
    return {d[0], d[1], d[2]};
  }
  std::vector<int> best;
  int best_max = std::numeric_limits<int>::max(), best_mid = best_max;
  for (int a = 4; a * a * a <= chips; a += 4)
    for (int b = a; a * b * b <= chips; b += 4) {
      if (chips % (a * b) != 0 || (chips / (a * b)) % 4 != 0 || chips / (a * b) < b)
        continue;
      const int c = chips / (a * b);
      if (c < best_max || (c == best_max && b < best_mid)) {
        best = {a, b, c};
        best_max = c;
        best_mid = b;
      }
    }
  return best;
}

std::string generation_list() {
  return "v4, v5e (or v5litepod), v5p, v6e";
}

} // namespace

const char* to_string(tpu_generation g) {
  switch (g) {
    case tpu_generation::v4: return "v4";
    case tpu_generation::v5e: return "v5e";
    case tpu_generation::v5p: return "v5p";
    case tpu_generation::v6e: return "v6e";
  }
  return "?";
}

bool looks_like_accelerator(std::string_view text) {
  const auto dash = text.find('-');
  return dash != std::string_view::npos && find_generation(lower(text.substr(0, dash)));
}

tpu_accelerator parse_accelerator(std::string_view text, int num_slices) {
  const std::string name(text);
  const auto dash = text.find('-');
  const auto* g = dash == std::string_view::npos ? nullptr
                                                 : find_generation(lower(text.substr(0, dash)));
  if (!g)
    throw input_error("accelerator type '" + name + "': expected GENERATION-COUNT with a "
                      "generation of " + generation_list() + " (e.g. v5e-256, v5p-128)");
  const auto count_text = text.substr(dash + 1);
  long long count = 0;
  for (char c : count_text) {
    if (c < '0' || c > '9' || count > 1'000'000)
      throw input_error("accelerator type '" + name + "': '" + std::string(count_text)
                        + "' is not a count");
    count = count * 10 + (c - '0');
  }
  if (count_text.empty() || count <= 0 || count % g->cores_per_chip != 0)
    throw input_error("accelerator type '" + name + "': the count must be a positive "
                      + (g->cores_per_chip == 2 ? std::string("even number (TensorCores, two per chip)")
                                                : std::string("number of chips")));
  const int chips = static_cast<int>(count / g->cores_per_chip);
  const bool shaped = g->dims == 2 ? power_of_two(chips)
                                   : (chips < 64 ? power_of_two(chips) : chips % 64 == 0);
  if (chips > g->max_chips || !shaped)
    throw input_error("accelerator type '" + name + "': no " + g->prefix + " slice has "
                      + std::to_string(chips) + " chips ("
                      + (g->dims == 2 ? "powers of two up to 256"
                                      : "powers of two below 64, then multiples of 64 up to "
                                            + std::to_string(g->max_chips))
                      + ")");
  tpu_accelerator a;
  a.generation = g->generation;
  a.chips = chips;
  a.slice.dims = g->dims == 2 ? shape_2d(chips) : shape_3d(chips);
  a.slice.num_slices = std::max(1, num_slices);
  return a;
}

std::optional<tpu_generation> generation_of_device(std::string_view device_name) {
  const auto name = lower(device_name);
  if (name.find("tpu") == std::string::npos)
    return std::nullopt;
  for (const auto& g : generations)
    if (name.find(g.prefix) != std::string::npos)
      return g.generation;
  return std::nullopt;
}

} // namespace paratune
