#include "core/shell_quote.hpp"

#include "core/input_error.hpp"

namespace paratune {

namespace {

bool plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
         || std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
}

} // namespace

std::string shell_quote(std::string_view word) {
  if (word.find('\0') != std::string_view::npos)
    throw input_error("a value holds a NUL byte, which a command line cannot carry");
  bool bare = !word.empty();
  for (char c : word)
    bare = bare && plain(c);
  if (bare)
    return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''"; // close the quote, an escaped quote, open again
    else
      out += c;
  }
  return out + "'";
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& word : argv) {
    if (!out.empty())
      out += ' ';
    out += shell_quote(word);
  }
  return out;
}

} // namespace paratune
