#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paratune {

/// `word` as one POSIX shell word, whatever it holds: bare when every
/// character is one no shell gives a meaning to (letters, digits and
/// _@%+=:,./-), else inside single quotes, where nothing is special, with
/// each ' written as '\''. The empty word is ''. This is the only way a value
/// reaches a shell in paratune (batch scripts, command lines shown to a user):
/// a name holding '; rm -rf ~ or $(...) stays one inert word.
/// Throws input_error for a NUL byte, which no argv can carry.
std::string shell_quote(std::string_view word);

/// The words quoted by shell_quote() and joined by spaces: a command line
/// a shell runs as exactly these argv entries.
std::string shell_command(const std::vector<std::string>& argv);

} // namespace paratune
