// core/nearest_name: the key a misspelled one most likely meant, as the
// job file's "unknown key 'trails' (did you mean 'trials'?)" suggests it.
#include "core/nearest_name.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

TEST(nearest_name, counts_insertions_deletions_substitutions_and_swaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("trials", "trials"), 0u);
  EXPECT_EQ(edit_distance("", "tp"), 2u);
  EXPECT_EQ(edit_distance("trails", "trials"), 1u);        // a swap
  EXPECT_EQ(edit_distance("serach", "search"), 1u);        // a swap
  EXPECT_EQ(edit_distance("early_stopp", "early_stop"), 1u); // an insertion
  EXPECT_EQ(edit_distance("pool", "pools"), 1u);           // a deletion
  EXPECT_EQ(edit_distance("nodse", "nodes"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("ca", "abc"), 3u); // optimal string alignment, not Damerau's 2
  EXPECT_EQ(edit_distance("abc", "ca"), edit_distance("ca", "abc"));
}

constexpr std::string_view top_keys[] = {"name", "model", "cluster", "nodes", "precision",
                                         "initial", "search", "trials", "tokens", "pools",
                                         "early_stop", "env", "secret_env"};

TEST(nearest_name, suggests_the_key_a_misspelling_meant) {
  EXPECT_EQ(nearest_name("trails", top_keys), "trials");
  EXPECT_EQ(nearest_name("serach", top_keys), "search");
  EXPECT_EQ(nearest_name("early_stopp", top_keys), "early_stop");
  EXPECT_EQ(nearest_name("Trials", top_keys), "trials"); // case is not a misspelling's size
  EXPECT_EQ(nearest_name("pool", top_keys), "pools");
  EXPECT_EQ(nearest_name("secretenv", top_keys), "secret_env");
  EXPECT_EQ(nearest_name("clustr", top_keys), "cluster");
}

TEST(nearest_name, suggests_nothing_that_is_not_near) {
  EXPECT_EQ(nearest_name("gpus", top_keys), std::nullopt);
  EXPECT_EQ(nearest_name("learning_rate", top_keys), std::nullopt);
  EXPECT_EQ(nearest_name("", top_keys), std::nullopt);
  EXPECT_EQ(nearest_name("trials", {}), std::nullopt);
  // Short keys: one edit at most ("tp" is one from "pp", two from "mbs").
  constexpr std::string_view config[] = {"tp", "pp", "cp", "mbs", "gbs", "seq"};
  EXPECT_EQ(nearest_name("tpp", config), "tp");  // a tie goes to the first listed
  EXPECT_EQ(nearest_name("sq", config), "seq");
  EXPECT_EQ(nearest_name("xyz", config), std::nullopt);
  // A known word suggests nothing, not itself.
  EXPECT_EQ(nearest_name("trials", top_keys), std::nullopt);
}

} // namespace
} // namespace paratune
