// BM25 over the team's knowledge base, stored in RocksDB: concrete rankings
// of the real documents, atomic rebuilds, persistence.

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "adapters/diagnosis/diagnosis_run.hpp"
#include "core/input_error.hpp"
#include "core/retrieval/bm25.hpp"
#include "storage/knowledge_index.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

std::string docs_dir() { return test::source_dir() + "/configs/knowledge"; }

struct knowledge : ::testing::Test {
  void SetUp() override {
    dir = test::make_temp_dir("knowledge");
    docs = load_knowledge_dir(docs_dir());
    auto opened = knowledge_index::open(dir + "/index");
    ASSERT_TRUE(opened) << to_string(opened.error());
    index = std::move(*opened);
    ASSERT_TRUE(index->rebuild(docs));
  }
  void TearDown() override {
    index.reset();
    fs::remove_all(dir);
  }
  std::string first(const std::string& query) {
    auto hits = index->query(query, 3);
    EXPECT_TRUE(hits);
    return hits && !hits->empty() ? hits->front().id : "";
  }
  std::string dir;
  std::vector<knowledge_doc> docs;
  std::unique_ptr<knowledge_index> index;
};

TEST(bm25, tokenizer_lowercases_drops_stop_words_and_stems) {
  EXPECT_EQ(bm25::tokenize("The Shards, sharding and SHARDED weights of v5p"),
            (std::vector<std::string>{"shard", "shard", "shard", "weight", "v5p"}));
  EXPECT_EQ(bm25::tokenize("all-reduce bubbles"),
            (std::vector<std::string>{"all", "reduce", "bubble"}));
  EXPECT_TRUE(bm25::tokenize("the of and").empty());
}

TEST(bm25, idf_and_term_score_follow_okapi) {
  EXPECT_NEAR(bm25::idf(20, 1), std::log(1 + 19.5 / 1.5), 1e-12);
  EXPECT_GT(bm25::idf(20, 1), bm25::idf(20, 10));
  EXPECT_GT(bm25::idf(20, 20), 0.0);
  // tf saturates; a longer document scores lower for the same tf.
  const double w = bm25::idf(20, 2);
  EXPECT_NEAR(bm25::term_score(w, 1, 100, 100), w, 1e-12);
  EXPECT_LT(bm25::term_score(w, 10, 100, 100), 2.2 * w);
  EXPECT_LT(bm25::term_score(w, 2, 200, 100), bm25::term_score(w, 2, 100, 100));
}

TEST_F(knowledge, the_knowledge_base_has_short_titled_tagged_documents) {
  ASSERT_GE(docs.size(), 15u);
  ASSERT_LE(docs.size(), 25u);
  for (const auto& d : docs) {
    EXPECT_FALSE(d.title.empty()) << d.id;
    EXPECT_GE(d.tags.size(), 3u) << d.id;
    const auto words = bm25::tokenize(d.body).size();
    EXPECT_GE(words, 50u) << d.id;
  }
  EXPECT_EQ(index->size(), docs.size());
}

TEST_F(knowledge, queries_rank_the_right_principle_first) {
  EXPECT_EQ(first("HBM bandwidth bound fusion"), "hbm-bound-ops");
  EXPECT_EQ(first("pipeline bubble micro-batches"), "pipeline-bubbles");
  EXPECT_EQ(first("out of memory OOM"), "memory-capacity");
  EXPECT_EQ(first("reduce tensor parallelism collectives waiting on the interconnect"),
            "reduce-model-parallelism");
  EXPECT_EQ(first("causal imbalance striping context parallel"), "causal-cp-balance");
  EXPECT_EQ(first("input pipeline host stall infeed"), "input-pipeline");
  EXPECT_EQ(first("mixture of experts all-to-all routing"), "expert-parallelism");
  EXPECT_EQ(first("DCN multislice data parallelism across slices"), "data-parallelism-dcn");
  EXPECT_EQ(first("arithmetic intensity per mesh axis hardware FLOP per byte"),
            "intensity-rules");
}

TEST_F(knowledge, scores_descend_and_unrelated_queries_find_nothing) {
  auto hits = index->query("HBM bandwidth bound fusion", 5);
  ASSERT_TRUE(hits);
  ASSERT_EQ(hits->size(), 5u);
  for (std::size_t i = 1; i < hits->size(); ++i)
    EXPECT_GE((*hits)[i - 1].score, (*hits)[i].score);
  EXPECT_GT((*hits)[0].score, 1.2 * (*hits)[1].score);
  EXPECT_FALSE((*hits)[0].excerpt.empty());
  auto none = index->query("zebra xylophone", 3);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST_F(knowledge, ensure_rebuilds_only_when_the_documents_change) {
  auto again = index->ensure(docs);
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again);
  std::vector<knowledge_doc> one{{"zebra", "Zebra striping", {"zebra"}, "Zebras have stripes."}};
  auto changed = index->ensure(one);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(index->size(), 1u);
  EXPECT_EQ(first("stripes"), "zebra");
  auto gone = index->query("HBM bandwidth", 3);  // the old postings went with the rebuild
  ASSERT_TRUE(gone);
  EXPECT_TRUE(gone->empty());
}

TEST_F(knowledge, the_index_survives_reopening) {
  index.reset();
  auto reopened = knowledge_index::open(dir + "/index");
  ASSERT_TRUE(reopened);
  index = std::move(*reopened);
  EXPECT_EQ(index->size(), docs.size());
  EXPECT_EQ(first("HBM bandwidth bound fusion"), "hbm-bound-ops");
  auto d = index->document(0);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id, docs[0].id);
  EXPECT_EQ(d->tags, docs[0].tags);
}

TEST(knowledge_doc, front_matter_is_required) {
  auto d = parse_knowledge_doc("---\nid: a\ntitle: A title\ntags: [x, y]\n---\nBody text.\n", "t");
  EXPECT_EQ(d.id, "a");
  EXPECT_EQ(d.title, "A title");
  EXPECT_EQ(d.tags, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(d.body, "Body text.");
  EXPECT_THROW(parse_knowledge_doc("no front matter", "t"), input_error);
  EXPECT_THROW(parse_knowledge_doc("---\nid: a\n", "t"), input_error);
  EXPECT_THROW(parse_knowledge_doc("---\ntitle: x\n---\nbody", "t"), input_error);
}

} // namespace
} // namespace paratune
