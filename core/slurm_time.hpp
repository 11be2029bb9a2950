#pragma once

#include <optional>
#include <string_view>

namespace paratune {

/// A time limit as Slurm's --time reads it, in whole minutes (seconds round
/// up, as Slurm does): "MM", "MM:SS", "HH:MM:SS", "D-HH", "D-HH:MM" or
/// "D-HH:MM:SS". nullopt for anything else, a limit of zero, or more than
/// 366 days (a typo rather than a limit).
std::optional<int> parse_slurm_time_minutes(std::string_view text);

} // namespace paratune
