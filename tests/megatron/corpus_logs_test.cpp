// The four real Megatron-LM logs in data/megatron_logs/: concrete
// values read from each, so the parser is checked against real output, not
// against lines written to suit it.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "adapters/megatron/megatron_log_parser.hpp"
#include "core/input_error.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

megatron_log corpus(const std::string& name) {
  return parse_megatron_log_file(test::data_dir() + "/megatron_logs/" + name);
}

const timer_value* find_timer(const timer_report& r, const std::string& name) {
  for (const auto& t : r.timers)
    if (t.name == name) return &t;
  return nullptr;
}

// --- bigscience: pre-core Megatron-LM (2021), 16 V100, TP4 PP4, fp16 -------

class bigscience_log : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    log_ = new megatron_log(corpus("bigscience_gpt2-meg_n4_dp1_tp4_pp4-1809579.txt"));
  }
  static void TearDownTestSuite() { delete log_; }
  static megatron_log* log_;
};
megatron_log* bigscience_log::log_ = nullptr;

TEST_F(bigscience_log, reads_every_iteration_line_without_timestamps) {
  const auto& its = log_->iterations;
  ASSERT_EQ(its.size(), 20u);
  EXPECT_EQ(its.front().iteration, 10);
  EXPECT_EQ(its.front().train_iters, 1000);
  EXPECT_DOUBLE_EQ(its.front().elapsed_ms, 2152.2);
  EXPECT_EQ(its.front().line, 1510);
  EXPECT_FALSE(its.front().timestamp().has_value());
  EXPECT_FALSE(its.front().tflops_per_gpu.has_value()); // no --log-throughput in 2021
  EXPECT_EQ(its.back().iteration, 200);
  EXPECT_DOUBLE_EQ(its.back().elapsed_ms, 1382.2);
}

TEST_F(bigscience_log, keeps_every_key_of_an_iteration_line_in_order) {
  const auto& first = log_->iterations[0]; // fp16 warm-up: all skipped, no loss key
  EXPECT_EQ(find_value(first, "learning rate"), "0.000E+00");
  EXPECT_EQ(find_value(first, "number of skipped iterations"), "10");
  EXPECT_FALSE(find_value(first, "lm loss").has_value());
  const auto& second = log_->iterations[1];
  ASSERT_EQ(second.values.size(), 8u);
  EXPECT_EQ(second.values[0].first, "consumed samples");
  EXPECT_EQ(second.values[0].second, "80");
  EXPECT_EQ(second.values[4].first, "lm loss");
  EXPECT_EQ(second.values[4].second, "1.203115E+01");
  EXPECT_DOUBLE_EQ(*find_number(second, "loss scale"), 32768.0);
}

TEST_F(bigscience_log, splits_memory_reports_glued_on_one_line) {
  const auto& mem = log_->memory;
  ASSERT_EQ(mem.size(), 16u);
  std::set<int> ranks;
  for (const auto& m : mem) ranks.insert(m.rank);
  EXPECT_EQ(ranks.size(), 16u);
  EXPECT_EQ(*ranks.begin(), 0);
  EXPECT_EQ(*ranks.rbegin(), 15);
  // Line 1517 holds ranks 13, 12 and 14.
  const auto glued =
      std::count_if(mem.begin(), mem.end(), [](const memory_record& m) { return m.line == 1517; });
  EXPECT_EQ(glued, 3);
  const auto r12 =
      std::find_if(mem.begin(), mem.end(), [](const memory_record& m) { return m.rank == 12; });
  ASSERT_NE(r12, mem.end());
  EXPECT_EQ(r12->iteration, 20);
  EXPECT_DOUBLE_EQ(r12->allocated_mib, 23121.3212890625);
  EXPECT_DOUBLE_EQ(r12->max_allocated_mib, 25791.771484375);
  EXPECT_DOUBLE_EQ(r12->reserved_mib, 30542.0);
  double max_reserved = 0;
  for (const auto& m : mem) max_reserved = std::max(max_reserved, m.max_reserved_mib);
  EXPECT_DOUBLE_EQ(max_reserved, 30806.0); // rank 15
}

TEST_F(bigscience_log, reads_the_argument_dump_and_world_size_line) {
  EXPECT_EQ(log_->args.size(), 138u);
  EXPECT_EQ(log_->args.at("tensor_model_parallel_size"), "4");
  EXPECT_EQ(log_->args.at("pipeline_model_parallel_size"), "4");
  EXPECT_EQ(log_->args.at("world_size"), "16");
  EXPECT_EQ(log_->args.at("DDP_impl"), "local");
  EXPECT_EQ(log_->args.at("virtual_pipeline_model_parallel_size"), "None");
  ASSERT_TRUE(log_->layout.has_value());
  EXPECT_EQ(log_->layout->world_size, 16);
  EXPECT_EQ(log_->layout->data_parallel, 1);
  EXPECT_EQ(log_->layout->tensor_parallel, 4);
  EXPECT_EQ(log_->layout->pipeline_parallel, 4);
  EXPECT_FALSE(log_->layout->context_parallel.has_value());
  EXPECT_EQ(log_->num_microbatches, 4);
}

TEST_F(bigscience_log, reads_the_old_one_line_timers) {
  ASSERT_EQ(log_->timers.size(), 22u); // 2 at startup, one per logged iteration
  const auto& startup = log_->timers[0];
  EXPECT_EQ(startup.iteration, 0);
  ASSERT_NE(find_timer(startup, "load-checkpoint"), nullptr);
  EXPECT_DOUBLE_EQ(find_timer(startup, "load-checkpoint")->max_ms, 0.35);
  const auto& after10 = log_->timers[2];
  EXPECT_EQ(after10.iteration, 10);
  EXPECT_EQ(after10.line, 1511);
  ASSERT_EQ(after10.timers.size(), 11u);
  EXPECT_EQ(after10.timers.front().name, "forward-compute");
  EXPECT_DOUBLE_EQ(after10.timers.front().max_ms, 306.62);
  EXPECT_FALSE(after10.timers.front().min_ms.has_value());
  EXPECT_EQ(after10.timers.back().name, "batch-generator");
  EXPECT_DOUBLE_EQ(after10.timers.back().max_ms, 2.97);
}

TEST_F(bigscience_log, reads_validation_markers_and_rank_parameters) {
  ASSERT_EQ(log_->validations.size(), 2u);
  EXPECT_EQ(log_->validations[0].iteration, 100);
  EXPECT_EQ(log_->validations[0].values.at(0).first, "lm loss value");
  EXPECT_EQ(log_->validations[0].values.at(0).second, "8.017406E+00");
  ASSERT_EQ(log_->markers.size(), 4u);
  EXPECT_EQ(log_->markers[0].name, "after megatron is initialized");
  EXPECT_EQ(log_->markers[0].timestamp, "2021-05-23 08:41:04");
  ASSERT_EQ(log_->parameters.size(), 16u);
  EXPECT_EQ(log_->parameters[0].tensor_rank, 0);
  EXPECT_EQ(log_->parameters[0].pipeline_rank, 1);
  EXPECT_EQ(log_->parameters[0].parameters, 1132938240);
}

TEST_F(bigscience_log, a_cancelled_job_and_its_shell_trace_are_not_errors) {
  EXPECT_TRUE(log_->errors.empty());
  EXPECT_FALSE(log_->partial);
  EXPECT_EQ(log_->lines, 1594);
}

// --- jindajia: Megatron-LM ~23.08, 1 V100, ends in an old-format CUDA OOM ---

class jindajia_oom_log : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    log_ = new megatron_log(corpus("jindajia_Megatron-LM_debug_terminal_oom_issue525.txt"));
  }
  static void TearDownTestSuite() { delete log_; }
  static megatron_log* log_;
};
megatron_log* jindajia_oom_log::log_ = nullptr;

TEST_F(jindajia_oom_log, reports_exactly_the_oom_with_its_text_and_line) {
  ASSERT_EQ(log_->errors.size(), 1u); // torchrun's ChildFailedError only repeats it
  const auto& e = log_->errors[0];
  EXPECT_EQ(e.kind, log_error_kind::oom);
  EXPECT_STREQ(to_string(e.kind), "oom");
  EXPECT_EQ(e.line, 851);
  EXPECT_TRUE(e.message.starts_with("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to "
                                    "allocate 786.00 MiB (GPU 0; 31.74 GiB total capacity; "
                                    "28.82 GiB already allocated; 577.12 MiB free; 29.97 GiB "
                                    "reserved in total by PyTorch)"))
      << e.message;
}

TEST_F(jindajia_oom_log, reads_the_argument_dump) {
  EXPECT_EQ(log_->args.size(), 235u);
  EXPECT_EQ(log_->args.at("tensor_model_parallel_size"), "1");
  EXPECT_EQ(log_->args.at("micro_batch_size"), "4");
  EXPECT_EQ(log_->args.at("global_batch_size"), "16");
  EXPECT_EQ(log_->args.at("params_dtype"), "torch.float16");
  EXPECT_EQ(log_->args.at("use_distributed_optimizer"), "True");
  EXPECT_EQ(log_->args.at("data_path"),
            "['/ocean/projects/asc200010p/jjia1/Developer/LLM/gpt2/datapath/gpt2_text_document']");
  EXPECT_EQ(log_->args.at("profile_ranks"), "[0]");
}

TEST_F(jindajia_oom_log, reads_min_max_timers_and_startup_lines) {
  EXPECT_TRUE(log_->iterations.empty());
  ASSERT_EQ(log_->timers.size(), 2u);
  ASSERT_EQ(log_->timers[0].timers.size(), 1u);
  EXPECT_EQ(log_->timers[0].timers[0].name, "load-checkpoint");
  EXPECT_DOUBLE_EQ(*log_->timers[0].timers[0].min_ms, 1.19);
  EXPECT_DOUBLE_EQ(log_->timers[0].timers[0].max_ms, 1.19);
  ASSERT_EQ(log_->timers[1].timers.size(), 2u); // the indented dataset sizes are not timers
  EXPECT_EQ(log_->timers[1].timers[1].name, "train/valid/test-data-iterators-setup");
  EXPECT_DOUBLE_EQ(log_->timers[1].timers[1].max_ms, 808.51);
  ASSERT_EQ(log_->parameters.size(), 1u);
  EXPECT_EQ(log_->parameters[0].parameters, 771201024);
  ASSERT_TRUE(log_->layout.has_value());
  EXPECT_EQ(log_->layout->world_size, 1);
}

// --- MDK docs: core_r0.8.0, 7B fp16, two runs (8 then 16 GPUs) --------------

class mdk_log : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    log_ = new megatron_log(corpus("mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt"));
  }
  static void TearDownTestSuite() { delete log_; }
  static megatron_log* log_;
};
megatron_log* mdk_log::log_ = nullptr;

TEST_F(mdk_log, reads_timestamped_iteration_lines_with_throughput) {
  const auto& its = log_->iterations;
  ASSERT_EQ(its.size(), 20u);
  EXPECT_EQ(its[0].iteration, 10);
  EXPECT_EQ(its[0].train_iters, 500000);
  EXPECT_DOUBLE_EQ(its[0].elapsed_ms, 13035.3);
  ASSERT_TRUE(its[0].tflops_per_gpu.has_value());
  EXPECT_DOUBLE_EQ(*its[0].tflops_per_gpu, 812.5);
  EXPECT_EQ(its[0].timestamp(), "2024-09-03 15:54:54");
  EXPECT_EQ(find_value(its[0], "loss scale"), "8388608.0");
  EXPECT_FALSE(find_value(its[0], "lm loss").has_value());
  EXPECT_EQ(find_value(its[1], "lm loss"), "1.064275E+01");
  // Second run (16 GPUs) starts again at iteration 10.
  EXPECT_EQ(its[10].iteration, 10);
  EXPECT_DOUBLE_EQ(its[10].elapsed_ms, 15210.6);
  EXPECT_DOUBLE_EQ(*its[10].tflops_per_gpu, 748.3);
  EXPECT_DOUBLE_EQ(*its[19].tflops_per_gpu, 799.6);
}

TEST_F(mdk_log, reads_memory_and_the_weight_only_theoretical_memory_line) {
  ASSERT_EQ(log_->memory.size(), 2u);
  const auto& m = log_->memory[0];
  EXPECT_EQ(m.rank, 0);
  EXPECT_EQ(m.iteration, 20);
  EXPECT_DOUBLE_EQ(m.allocated_mib, 48465.275390625);
  EXPECT_DOUBLE_EQ(m.max_allocated_mib, 75078.4326171875);
  EXPECT_DOUBLE_EQ(m.reserved_mib, 75682.0);
  EXPECT_DOUBLE_EQ(m.max_reserved_mib, 75682.0);
  EXPECT_DOUBLE_EQ(log_->memory[1].max_allocated_mib, 70522.5751953125);
  const auto& t = log_->theory; // the second run's report wins
  EXPECT_DOUBLE_EQ(*t.weight_and_optimizer_mb, 41434.72);
  EXPECT_FALSE(t.activation_mb.has_value());
  EXPECT_FALSE(t.total_mb.has_value());
  EXPECT_DOUBLE_EQ(*t.params_billion, 6.44);
  EXPECT_DOUBLE_EQ(*t.most_loaded_shard_billion, 6.4367);
  EXPECT_DOUBLE_EQ(*t.transformer_params_billion, 6.02);
  EXPECT_DOUBLE_EQ(*t.embedding_params_billion, 0.41);
}

TEST_F(mdk_log, has_no_errors_or_arguments) {
  EXPECT_TRUE(log_->errors.empty());
  EXPECT_TRUE(log_->args.empty());
  EXPECT_EQ(log_->markers.size(), 2u);
}

// --- shifang99: core_v0.7.0, 8 V100, TP2 PP4, startup only ------------------

class shifang_log : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    log_ = new megatron_log(corpus("shifang99_core_v0.7.0_tp2_pp4_startup_only.txt"));
  }
  static void TearDownTestSuite() { delete log_; }
  static megatron_log* log_;
};
megatron_log* shifang_log::log_ = nullptr;

TEST_F(shifang_log, reads_the_argument_dump_and_layout) {
  EXPECT_EQ(log_->args.size(), 307u);
  EXPECT_EQ(log_->args.at("tensor_model_parallel_size"), "2");
  EXPECT_EQ(log_->args.at("pipeline_model_parallel_size"), "4");
  EXPECT_EQ(log_->args.at("world_size"), "8");
  EXPECT_EQ(log_->args.at("train_iters"), "3");
  EXPECT_EQ(log_->args.at("log_interval"), "1000");
  ASSERT_TRUE(log_->layout.has_value());
  EXPECT_EQ(log_->layout->world_size, 8);
  EXPECT_EQ(log_->layout->context_parallel, 1);
  EXPECT_EQ(log_->layout->tensor_parallel,
            2); // "... size: 1 tensor-model-parallel size: 2" (no comma)
  EXPECT_EQ(log_->layout->pipeline_parallel, 4);
  EXPECT_EQ(log_->num_microbatches, 1);
}

TEST_F(shifang_log, reads_min_max_timers_markers_and_glued_parameter_counts) {
  EXPECT_TRUE(log_->iterations.empty());
  EXPECT_TRUE(log_->memory.empty());
  ASSERT_EQ(log_->timers.size(), 1u);
  const auto* setup = find_timer(log_->timers[0], "model-and-optimizer-setup");
  ASSERT_NE(setup, nullptr);
  EXPECT_DOUBLE_EQ(*setup->min_ms, 28490.21);
  EXPECT_DOUBLE_EQ(setup->max_ms, 41802.71);
  ASSERT_EQ(log_->markers.size(), 5u);
  EXPECT_EQ(log_->markers.back().name, "after training is done");
  EXPECT_EQ(log_->markers.back().timestamp, "2024-08-26 13:08:58");
  EXPECT_EQ(log_->parameters.size(), 8u);
}

TEST_F(shifang_log, ucx_and_nvfuser_noise_are_not_errors) {
  EXPECT_TRUE(log_->errors.empty());
  EXPECT_EQ(log_->lines, 595);
}

TEST(corpus_file, an_unreadable_file_is_an_input_error_naming_it) {
  try {
    parse_megatron_log_file("/nonexistent/megatron.log");
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/megatron.log"), std::string::npos);
  }
  EXPECT_THROW(parse_megatron_log_file(test::data_dir()), input_error); // a directory
}

} // namespace
} // namespace paratune
