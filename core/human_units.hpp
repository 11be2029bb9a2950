#pragma once

#include <string>
#include <string_view>

namespace paratune {

// Numbers as a person reads them in text output. JSON keeps the raw unit
// (milliseconds, counts); only what is printed for people goes through here.

/// A duration in the unit that keeps it short: "850 ms", "1.54 s",
/// "25.6 min", "3.2 h". Negative or not finite: "-".
std::string human_duration(double ms);

/// `n` and the noun, singular for one: "1 trial", "3 trials", "0 trials".
/// `noun` is the singular; its plural adds "s".
std::string count_of(long long n, std::string_view noun);

} // namespace paratune
