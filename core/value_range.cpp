#include "core/value_range.hpp"

#include <charconv>
#include <cmath>
#include <limits>

#include "core/input_error.hpp"

namespace paratune {

namespace {

[[noreturn]] void refuse(std::string_view field, const std::string& what) {
  throw input_error(std::string(field) + ": " + what);
}

std::string quoted(std::string_view text) {
  // Long or binary input is cut so that the message stays one readable line.
  constexpr size_t shown = 40;
  std::string out = "'";
  for (char ch : text.substr(0, shown))
    out += (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f)
             ? '?'
             : ch;
  if (text.size() > shown)
    out += "...";
  return out + "'";
}

std::string real_text(double v) {
  auto s = std::to_string(v);
  while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.'))
    s.pop_back();
  return s;
}

} // namespace

std::string value_range::text() const {
  return std::to_string(min) + ".." + std::to_string(max);
}

void check_range(std::string_view field, int64_t v, value_range allowed) {
  if (!allowed.contains(v))
    refuse(field, std::to_string(v) + " is outside the allowed range " + allowed.text());
}

int64_t parse_integer(std::string_view field, std::string_view text, value_range allowed) {
  // from_chars takes no '+', but YAML and shells write it.
  const std::string_view digits = text.starts_with('+') ? text.substr(1) : text;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range)
    refuse(field, quoted(text) + " is outside the allowed range " + allowed.text());
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size())
    refuse(field, "expected an integer in " + allowed.text() + ", got " + quoted(text));
  check_range(field, v, allowed);
  return v;
}

int parse_int_field(std::string_view field, std::string_view text, value_range allowed) {
  return static_cast<int>(parse_integer(field, text, allowed));
}

double parse_real(std::string_view field, std::string_view text, double min, double max) {
  const std::string_view digits = text.starts_with('+') ? text.substr(1) : text;
  double v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size())
    refuse(field, "expected a number in " + real_text(min) + ".." + real_text(max) + ", got "
                    + quoted(text));
  check_real(field, v, min, max);
  return v;
}

void check_real(std::string_view field, double v, double min, double max) {
  if (!(v >= min && v <= max)) // also refuses nan
    refuse(field, (std::isnan(v) ? std::string("nan") : real_text(v))
                    + " is outside the allowed range " + real_text(min) + ".." + real_text(max));
}

int64_t checked_product(std::string_view field, std::initializer_list<int64_t> factors) {
  int64_t out = 1;
  for (int64_t f : factors)
    if (__builtin_mul_overflow(out, f, &out))
      refuse(field, "the product of its factors overflows 64 bits");
  return out;
}

} // namespace paratune
