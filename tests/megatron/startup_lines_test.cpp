// Start-up output: argument dump, world size, micro-batches, datetime
// markers, parameter counts, exit lines (notes/input_formats.md §1.5).

#include <gtest/gtest.h>

#include "adapters/megatron/startup_lines.hpp"
#include "tests/megatron/parse_text.hpp"

namespace paratune {
namespace {

using test::parse_text;

TEST(args_dump, dotted_padding_and_python_str_values) {
  const auto log = parse_text(
      "------------------------ arguments ------------------------\n"
      "  accumulate_allreduce_grads_in_fp32 .............. True\n"
      "  data_path ....................................... ['/data/a', '0.5', '/data/b']\n"
      "  decoder_first_pipeline_num_layers ............... None\n"
      "  params_dtype .................................... torch.bfloat16\n"
      "  tensor_model_parallel_size ...................... 2\n"
      "  lr .............................................. 0.00015\n"
      "  a_name_of_exactly_forty_eight_characters_long_xx  7\n"
      "  empty_string .................................... \n"
      "-------------------- end of arguments ---------------------\n"
      "  not_an_argument ................................. 1\n");
  EXPECT_EQ(log.args.size(), 8u);
  EXPECT_EQ(log.args.at("accumulate_allreduce_grads_in_fp32"), "True");
  EXPECT_EQ(log.args.at("data_path"), "['/data/a', '0.5', '/data/b']");
  EXPECT_EQ(log.args.at("decoder_first_pipeline_num_layers"), "None");
  EXPECT_EQ(log.args.at("params_dtype"), "torch.bfloat16");
  EXPECT_EQ(log.args.at("tensor_model_parallel_size"), "2");
  EXPECT_EQ(log.args.at("lr"), "0.00015");
  EXPECT_EQ(log.args.at("a_name_of_exactly_forty_eight_characters_long_xx"), "7");
  EXPECT_EQ(log.args.at("empty_string"), "");
  EXPECT_FALSE(log.args.contains("not_an_argument"));
}

TEST(args_dump, interleaved_lines_of_other_ranks_do_not_end_the_dump) {
  const auto log =
      parse_text("[default0]:------------------------ arguments ------------------------\n"
                 "[default0]:  micro_batch_size ................................ 1\n"
                 "[default3]:some other rank's warning\n"
                 "[default0]:  seq_length ...................................... 4096\n"
                 "[default0]:-------------------- end of arguments ---------------------\n");
  EXPECT_EQ(log.args.at("micro_batch_size"), "1");
  EXPECT_EQ(log.args.at("seq_length"), "4096");
}

TEST(world_size_line, every_version_wording) {
  parallel_layout l;
  ASSERT_TRUE(parse_world_size_line(
      "using world size: 16, data-parallel-size: 1, tensor-model-parallel size: 4, "
      "pipeline-model-parallel size: 4",
      l));
  EXPECT_EQ(l.world_size, 16);
  EXPECT_EQ(l.data_parallel, 1);
  EXPECT_EQ(l.tensor_parallel, 4);
  EXPECT_FALSE(l.context_parallel.has_value());
  l = {};
  ASSERT_TRUE(parse_world_size_line(
      "using world size: 64, data-parallel size: 4, context-parallel size: 2, hierarchical "
      "context-parallel sizes: [2, 1], tensor-model-parallel size: 4, pipeline-model-parallel "
      "size: 2",
      l));
  EXPECT_EQ(l.world_size, 64);
  EXPECT_EQ(l.data_parallel, 4);
  EXPECT_EQ(l.context_parallel, 2);
  EXPECT_EQ(l.tensor_parallel, 4);
  EXPECT_EQ(l.pipeline_parallel, 2);
  const auto log =
      parse_text("[rank0]:using world size: 8, data-parallel size: 1, context-parallel "
                 "size: 1 tensor-model-parallel size: 2, pipeline-model-parallel size: 4 \n");
  ASSERT_TRUE(log.layout.has_value());
  EXPECT_EQ(log.layout->pipeline_parallel, 4);
  EXPECT_EQ(log.layout->line, 1);
}

TEST(startup_lines, microbatches_markers_parameters_and_exit) {
  const auto log = parse_text(
      "setting number of microbatches to constant 8\n"
      "[after megatron is initialized] datetime: 2025-08-26 12:59:38.123456 \n"
      " > number of parameters on (tensor, pipeline) model parallel rank (1, 3): 102017024\n"
      " > number of parameters on datarank 0: (tensor, pipeline) model parallel rank "
      "(tensor_rank: 0, pipeline_rank: 2) (node: 0, local_rank: 0, global_rank: 0): 771201024\n"
      "exiting program at iteration 500\n");
  EXPECT_EQ(log.num_microbatches, 8);
  ASSERT_EQ(log.markers.size(), 1u);
  EXPECT_EQ(log.markers[0].timestamp, "2025-08-26 12:59:38.123456");
  ASSERT_EQ(log.parameters.size(), 2u);
  EXPECT_EQ(log.parameters[0].tensor_rank, 1);
  EXPECT_EQ(log.parameters[0].pipeline_rank, 3);
  EXPECT_EQ(log.parameters[0].parameters, 102017024);
  EXPECT_EQ(log.parameters[1].pipeline_rank, 2);
  EXPECT_EQ(log.parameters[1].parameters, 771201024);
  EXPECT_EQ(log.exit_reason, "exiting program at iteration 500");
  EXPECT_EQ(parse_microbatches_line("setting number of micro-batches to constant 4"), 4);
}

} // namespace
} // namespace paratune
