#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace paratune {

/// A message from outside (a Slurm command's stderr) made one line of at
/// most about `max_bytes` for the user: its non-empty lines, trimmed and
/// joined by "; ", as many whole lines as fit; when even the first does
/// not fit, that line up to its last whole word that does. Whatever is
/// left out is said: " [N more bytes cut]". Bytes that are not printable
/// ASCII become '?', so a terminal shows what the text says and nothing
/// else. Cutting at a line or word keeps the text readable: a message cut
/// mid-word ("Unknown ho") hides the very word the user needs.
std::string clipped_lines(std::string_view text, std::size_t max_bytes);

} // namespace paratune
