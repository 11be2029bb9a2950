#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace paratune {

/// The number of single-character insertions, deletions, substitutions and
/// swaps of two neighbours that turn `a` into `b` (the optimal string
/// alignment distance; "trails" -> "trials" is 1, a swap). Bytes are
/// compared as they are: the names it is meant for are ASCII keys.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The name of `known` that `word` most likely misspells, or nothing when
/// none is near enough to suggest: at most one edit for a word of up to
/// four characters, at most a third of the longer name's length beyond
/// that ("serach" -> "search", "early_stopp" -> "early_stop", but
/// "gpus" suggests nothing among "tp", "pp"). A suggestion that is wrong is
/// worse than none, so the bound is tight. Case is ignored in the
/// comparison ("Trials" -> "trials"); on a tie the first of `known` wins,
/// so callers list their names in a fixed order.
std::optional<std::string> nearest_name(std::string_view word,
                                        std::span<const std::string_view> known);

} // namespace paratune
