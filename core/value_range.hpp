#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace paratune {

/// The integers a field may hold, both ends included. Every number a user
/// can give (configuration keys, model dimensions, mesh axes, cluster and
/// simulator options) has one, so that a value is refused where it enters,
/// with its field and range named, rather than overflowing a product later.
struct value_range {
  int64_t min = 0;
  int64_t max = 0;

  bool contains(int64_t v) const { return v >= min && v <= max; }
  /// "1..1048576"
  std::string text() const;
};

/// The largest job paratune models: 2^20 devices. Every parallel size is at
/// most this, so a product of three of them still fits in 64 bits.
inline constexpr int64_t max_devices = int64_t(1) << 20;

/// Throws input_error "FIELD: VALUE is outside the allowed range MIN..MAX"
/// when `v` is not in `allowed`.
void check_range(std::string_view field, int64_t v, value_range allowed);

/// Parses the whole of `text` as a decimal integer (an optional sign and
/// digits, nothing else: not "8.5", "0x8" or "1e3") in `allowed`. Throws
/// input_error naming `field` when it is not an integer or out of range.
int64_t parse_integer(std::string_view field, std::string_view text, value_range allowed);

/// parse_integer for a field held in an int (`allowed` must lie in int).
int parse_int_field(std::string_view field, std::string_view text, value_range allowed);

/// Parses the whole of `text` as a finite decimal number in [min, max].
/// Throws input_error naming `field` for text that is not a number, nan,
/// inf, or a value out of range.
double parse_real(std::string_view field, std::string_view text, double min, double max);

/// Throws input_error naming `field` unless min <= v <= max (nan fails).
void check_real(std::string_view field, double v, double min, double max);

/// a * b, or input_error "FIELD: the product A x B overflows" when it does
/// not fit in 64 bits (a product of sizes a user gave, such as the world
/// size nodes x devices per node).
int64_t checked_product(std::string_view field, std::initializer_list<int64_t> factors);

} // namespace paratune
