#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace paratune::bm25 {

/// Okapi BM25 parameters (Robertson & Zaragoza's usual defaults).
struct parameters {
  double k1 = 1.2;
  double b = 0.75;
};

/// Lower-cased alphanumeric tokens, stop words dropped, a light English
/// stemmer applied (plural -s/-es, -ing, -ed) so that "shards", "sharding"
/// and "sharded" meet. Digits stay ("v5p", "2d").
std::vector<std::string> tokenize(std::string_view text);

/// Inverse document frequency with BM25's +1 smoothing (never negative).
double idf(std::uint64_t docs, std::uint64_t docs_with_term);

/// The contribution of one term to one document's score.
double term_score(double idf, std::uint32_t term_freq, std::uint32_t doc_length,
                  double average_length, const parameters& p = {});

} // namespace paratune::bm25
