#include "core/retrieval/bm25.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace paratune::bm25 {

namespace {

constexpr std::array<std::string_view, 48> stop_words = {
    "a",    "an",   "and",  "are",  "as",   "at",    "be",   "by",   "can",  "does",
    "for",  "from", "has",  "have", "how",  "if",    "in",   "into", "is",   "it",
    "its",  "more", "not",  "of",   "on",   "one",   "or",   "so",   "than", "that",
    "the",  "their", "then", "there", "these", "this", "to",  "too",  "was",  "we",
    "what", "when", "where", "which", "while", "with", "you",  "your"};

bool is_stop_word(std::string_view w) {
  return std::find(stop_words.begin(), stop_words.end(), w) != stop_words.end();
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Enough stemming for a small technical corpus: the inflections that would
// otherwise split one concept into several terms.
std::string stem(std::string w) {
  if (w.size() <= 3)
    return w;
  if (ends_with(w, "ies") && w.size() > 4)
    return w.substr(0, w.size() - 3) + "y";
  if (ends_with(w, "sses"))
    return w.substr(0, w.size() - 2);
  if (ends_with(w, "ing") && w.size() > 5)
    w = w.substr(0, w.size() - 3);
  else if (ends_with(w, "ed") && w.size() > 4)
    w = w.substr(0, w.size() - 2);
  else if (ends_with(w, "es") && w.size() > 4 && (ends_with(w, "ches") || ends_with(w, "shes")))
    w = w.substr(0, w.size() - 2);
  else if (ends_with(w, "s") && !ends_with(w, "ss") && !ends_with(w, "us") && !ends_with(w, "is"))
    w = w.substr(0, w.size() - 1);
  // "shard" + "ing" -> "shard"; "gather" + "ed" -> "gather"; doubled
  // consonants of "mapped" -> "map".
  if (w.size() > 3 && w[w.size() - 1] == w[w.size() - 2]
      && std::string_view("bdgmnprt").find(w.back()) != std::string_view::npos)
    w.pop_back();
  return w;
}

} // namespace

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  auto flush = [&] {
    if (!word.empty() && !is_stop_word(word))
      out.push_back(stem(word));
    word.clear();
  };
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      word.push_back(static_cast<char>(std::tolower(u)));
    else
      flush();
  }
  flush();
  return out;
}

double idf(std::uint64_t docs, std::uint64_t docs_with_term) {
  const double n = static_cast<double>(docs), df = static_cast<double>(docs_with_term);
  return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
}

double term_score(double idf_value, std::uint32_t term_freq, std::uint32_t doc_length,
                  double average_length, const parameters& p) {
  const double tf = term_freq;
  const double norm = average_length > 0 ? doc_length / average_length : 1.0;
  return idf_value * tf * (p.k1 + 1) / (tf + p.k1 * (1 - p.b + p.b * norm));
}

} // namespace paratune::bm25
