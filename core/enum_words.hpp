#pragma once

#include <initializer_list>
#include <string_view>

namespace paratune {

/// Reads an enum from its word: the value among `all` whose to_string() is
/// `text`. False, and `out` untouched, when none is.
template <class E>
bool parse_word_of(std::string_view text, std::initializer_list<E> all, E& out) {
  for (E value : all)
    if (text == to_string(value)) {
      out = value;
      return true;
    }
  return false;
}

} // namespace paratune
