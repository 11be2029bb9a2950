#pragma once

#include <cstddef>
#include <deque>
#include <string>

namespace paratune {

/// The end of what a job printed, for the message of a trial that failed
/// before it trained: its last non-blank lines, at most `max_lines` and, whole
/// lines only, at most about `max_bytes` (the last line alone is kept even
/// when longer, for core/clipped_lines to cut at a word), joined by "\n" in
/// the order printed. The end, because a job that cannot start says why last
/// (bash's "No such file or directory", slurmstepd's error, a traceback's
/// exception); whole lines, because half of one hides the word that matters.
std::string last_lines(const std::deque<std::string>& lines, std::size_t max_lines,
                       std::size_t max_bytes);

} // namespace paratune
