#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace paratune {

/// A 1024-bit Bloom filter of the byte pairs of one line. Most lines hold
/// none of the failure texts the error scanner looks for; one pass over the
/// line builds the filter, after which each of the ~25 phrases is ruled out
/// by testing four bits instead of searching the line. A phrase can only be
/// in the line if all of its byte pairs are, so the filter never hides a
/// match: a "maybe" is always confirmed by a real search.
class bigram_filter {
public:
  /// Four byte pairs spread over a phrase (of 2+ bytes), as filter slots.
  struct signature {
    std::array<uint16_t, 4> slots{};
  };

  static constexpr signature signature_of(std::string_view phrase) {
    signature sig;
    const std::size_t last = phrase.size() - 2;
    const std::size_t at[4] = {0, last / 3, 2 * last / 3, last};
    for (int k = 0; k < 4; ++k) sig.slots[k] = slot(phrase[at[k]], phrase[at[k] + 1]);
    return sig;
  }

  explicit bigram_filter(std::string_view line) {
    for (std::size_t i = 1; i < line.size(); ++i) {
      const uint16_t s = slot(line[i - 1], line[i]);
      bits_[s >> 6] |= uint64_t{1} << (s & 63);
    }
  }

  /// False when the phrase with this signature cannot be in the line.
  bool may_contain(const signature& sig) const {
    for (const uint16_t s : sig.slots)
      if (!(bits_[s >> 6] & (uint64_t{1} << (s & 63)))) return false;
    return true;
  }

private:
  // Fibonacci hashing of the 16-bit pair: the top 10 bits of the product.
  static constexpr uint16_t slot(char a, char b) {
    const uint32_t pair =
      (uint32_t{static_cast<unsigned char>(a)} << 8) | static_cast<unsigned char>(b);
    return static_cast<uint16_t>((pair * 0x9E3779B1u) >> 22);
  }

  std::array<uint64_t, 16> bits_{};
};

} // namespace paratune
