// report_theoretical_memory() output of every version (notes/input_formats.md §1.3).

#include <gtest/gtest.h>

#include "adapters/megatron/theory_lines.hpp"
#include "tests/megatron/parse_text.hpp"

namespace paratune {
namespace {

using test::parse_text;

TEST(theory_lines, head_three_part_footprint_with_block_wording) {
  const auto log = parse_text(
      "Number of parameters in transformer block in billions:  6.02\n"
      "Number of parameters in embedding layers in billions: 0.41\n"
      "Total number of parameters in billions: 6.44\n"
      "Number of parameters in most loaded shard in billions: 1.6092\n"
      "Number of parameters in other shards in billions: 1.5050\n"
      "compute_activation_memory_without_sp\n"
      "Activation memory footprint per transformer layer (precise, without SP): 480.0 MB\n"
      "Theoretical memory footprints: weight and optimizer=27621.09 MB, activation=16432.52 MB, "
      "total=44053.61 MB\n"
      "\n");
  const auto& t = log.theory;
  EXPECT_DOUBLE_EQ(*t.transformer_params_billion, 6.02);
  EXPECT_DOUBLE_EQ(*t.embedding_params_billion, 0.41);
  EXPECT_DOUBLE_EQ(*t.params_billion, 6.44);
  EXPECT_DOUBLE_EQ(*t.most_loaded_shard_billion, 1.6092);
  EXPECT_DOUBLE_EQ(*t.other_shards_billion, 1.505);
  EXPECT_DOUBLE_EQ(*t.activation_per_layer_mb, 480.0);
  EXPECT_DOUBLE_EQ(*t.weight_and_optimizer_mb, 27621.09);
  EXPECT_DOUBLE_EQ(*t.activation_mb, 16432.52);
  EXPECT_DOUBLE_EQ(*t.total_mb, 44053.61);
  EXPECT_FALSE(t.unsupported);
  EXPECT_TRUE(log.errors.empty());
}

TEST(theory_lines, core_0_11_layers_wording_and_weight_only_form) {
  const auto log =
      parse_text("[default0]:Number of parameters in transformer layers in billions:  0.30\n"
                 "[default0]:Theoretical memory footprints: weight and optimizer=5000.50 MB\n");
  EXPECT_DOUBLE_EQ(*log.theory.transformer_params_billion, 0.30);
  EXPECT_DOUBLE_EQ(*log.theory.weight_and_optimizer_mb, 5000.5);
  EXPECT_FALSE(log.theory.total_mb.has_value());
}

TEST(theory_lines, a_later_weight_only_line_replaces_an_earlier_full_one) {
  const auto log = parse_text("Theoretical memory footprints: weight and optimizer=1.00 MB, "
                              "activation=2.00 MB, total=3.00 MB\n"
                              "Theoretical memory footprints: weight and optimizer=4.00 MB\n");
  EXPECT_DOUBLE_EQ(*log.theory.weight_and_optimizer_mb, 4.0);
  EXPECT_FALSE(log.theory.activation_mb.has_value());
}

TEST(theory_lines, hybrid_mamba_is_marked_unsupported) {
  const auto log = parse_text(
      "Theoretical memory footprints not yet supported for hybrid Mamba-Transformer models.\n");
  EXPECT_TRUE(log.theory.unsupported);
  EXPECT_FALSE(log.theory.weight_and_optimizer_mb.has_value());
}

TEST(theory_lines, other_lines_starting_alike_are_left_alone) {
  theoretical_memory t;
  EXPECT_FALSE(
      parse_theory_line("Number of buckets for gradient all-reduce / reduce-scatter: 1", t));
  EXPECT_FALSE(parse_theory_line("Traceback (most recent call last):", t));
  EXPECT_FALSE(t.params_billion.has_value());
}

} // namespace
} // namespace paratune
