#include "core/nearest_name.hpp"

#include <algorithm>
#include <vector>

#include "core/text.hpp"

namespace paratune {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the table are enough: the swap looks two rows back.
  const std::size_t n = b.size();
  std::vector<std::size_t> before(n + 1), previous(n + 1), current(n + 1);
  for (std::size_t j = 0; j <= n; ++j)
    previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[n];
}

namespace {

// How many edits a misspelling of a name this long may hold and still be
// suggested: short keys (tp, pp, mbs) are one edit from many others.
std::size_t suggestion_bound(std::size_t longer) {
  return longer <= 4 ? 1 : longer / 3;
}

} // namespace

std::optional<std::string> nearest_name(std::string_view word,
                                        std::span<const std::string_view> known) {
  const auto folded = lower(word);
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto name : known) {
    const auto d = edit_distance(folded, lower(name));
    if (d == 0 && name == word)
      continue; // the word itself is known: there is nothing to suggest
    if (d > suggestion_bound(std::max(word.size(), name.size())))
      continue;
    if (!best || d < best_distance) {
      best = std::string(name);
      best_distance = d;
    }
  }
  return best;
}

} // namespace paratune
