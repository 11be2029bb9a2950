#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paratune {

// Small text helpers for names, keys and fields that users and files spell
// freely. ASCII only: the byte-wise std::tolower/std::toupper of the "C"
// locale, so a name compares the same on every machine.

/// `s` with its ASCII letters in lower case ("Llama3" -> "llama3").
std::string lower(std::string_view s);

/// `s` with its ASCII letters in upper case ("fused_ce" -> "FUSED_CE").
std::string upper(std::string_view s);

/// `s` without the leading and trailing characters in `blanks`; the default
/// suits one line of a key=value list, files pass " \t\r\n" as well.
std::string trim(std::string_view s, std::string_view blanks = " \t");

/// The pieces of `s` between the `sep` characters, untrimmed and with empty
/// pieces kept ("a,,b" -> a, "", b), except that a `sep` at the very end
/// opens no empty last piece: the items of a "KEY=VALUE,..." list.
std::vector<std::string> split(std::string_view s, char sep);

/// A shell identifier, as environment variable names are:
/// [A-Za-z_][A-Za-z0-9_]*.
bool is_identifier(std::string_view s);

/// A name that may stand in a path, an argv entry or a message as it is:
/// 1 to `max_size` letters, digits, '_', '-' or '.' (pool, partition and
/// catalog names).
bool is_plain_name(std::string_view s, size_t max_size);

/// At most `max_bytes` of untrusted `s` as printable ASCII, for an error
/// message: other bytes as \xNN, a cut shown by "...". The result is
/// valid UTF-8 whatever `s` held.
std::string printable_excerpt(std::string_view s, size_t max_bytes);

/// `s` with every byte that is not part of a well-formed UTF-8 sequence
/// written as \xNN: text from outside that goes into a msgpack str, which a
/// strict decoder reads as UTF-8.
std::string utf8_escaped(std::string_view s);

/// `items` with `sep` between them ("tp, pp, cp").
std::string join(const std::vector<std::string>& items, std::string_view sep);

} // namespace paratune
