// Failure signatures: CUDA OOM (old and new PyTorch texts), NCCL watchdog
// timeouts of every PyTorch generation, Megatron's invalid-configuration
// texts, NaN detection, and what must NOT count as a failure
// (notes/input_formats.md §1.6 and §2).

#include <gtest/gtest.h>

#include "adapters/megatron/error_classifier.hpp"
#include "tests/megatron/parse_text.hpp"

namespace paratune {
namespace {

using test::parse_text;

std::optional<log_error_kind> kind_of(std::string_view line) {
  const auto log = parse_text(std::string(line) + "\n");
  EXPECT_LE(log.errors.size(), 1u) << line;
  if (log.errors.empty()) return std::nullopt;
  return log.errors[0].kind;
}

TEST(oom, new_pytorch_text) {
  EXPECT_EQ(
      kind_of("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 19.68 GiB. GPU "
              "0 has a total capacity of 23.68 GiB of which 11.88 GiB is free. Including "
              "non-PyTorch memory, this process has 11.79 GiB memory in use. Of the allocated "
              "memory 11.44 GiB is allocated by PyTorch, and 43.59 MiB is reserved by PyTorch "
              "but unallocated."),
      log_error_kind::oom);
  EXPECT_EQ(kind_of("[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 "
                    "GiB. GPU 3 has a total capacity of 79.11 GiB of which 1.18 GiB is free. "
                    "Process 2752205 has 91.82 GiB memory in use."),
            log_error_kind::oom);
}

TEST(oom, old_pytorch_texts_and_non_allocator_oom) {
  EXPECT_EQ(kind_of("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 786.00 MiB "
                    "(GPU 0; 31.74 GiB total capacity; 28.82 GiB already allocated; 577.12 MiB "
                    "free; 29.97 GiB reserved in total by PyTorch)"),
            log_error_kind::oom);
  EXPECT_EQ(kind_of("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 "
                    "GiB total capacity; 14.50 GiB already allocated)"),
            log_error_kind::oom);
  EXPECT_EQ(kind_of("RuntimeError: CUDA error: out of memory"), log_error_kind::oom);
  EXPECT_EQ(kind_of("[default0]:  what():  CUDA error: out of memory"), log_error_kind::oom);
  EXPECT_EQ(kind_of("torch.cuda.OutOfMemoryError"), log_error_kind::oom);
}

TEST(oom, each_rank_repeating_the_same_text_is_one_error) {
  std::string text;
  for (int r = 0; r < 8; ++r)
    text += "[default" + std::to_string(r) +
            "]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.\n";
  const auto log = parse_text(text);
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].line, 1);
  EXPECT_EQ(log.errors[0].message,
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.");
}

TEST(nccl_timeout, every_pytorch_generation) {
  for (
      const char* line : {
          "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: "
          "WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 "
          "milliseconds before timing out.",
          "[E ProcessGroupNCCL.cpp:481] [Rank 65] Watchdog caught collective operation timeout: "
          "WorkNCCL(SeqNum=1559, OpType=_REDUCE_SCATTER_BASE, NumelIn=3121908768, "
          "NumelOut=32519883, Timeout(ms)=1800000) ran for 1800441 milliseconds before timing out.",
          "[E ProcessGroupNCCL.cpp:495] Some NCCL operations have failed or timed out.",
          "[rank2]:[E ProcessGroupNCCL.cpp:754] [Rank 2] Watchdog caught collective operation "
          "timeout: WorkNCCL(SeqNum=305, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
          "Timeout(ms)=600000) ran for 600381 milliseconds before timing out.",
          "[rank0]:[E321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception "
          "(either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL "
          "work: 1582, last completed NCCL work: 1579.",
          "[rank0]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught "
          "collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=131072000, "
          "NumelOut=131072000, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.",
          "[rank1]:[E1218 20:27:21.484903450 ProcessGroupNCCL.cpp:2168] [PG ID 1 PG GUID 1 Rank 1] "
          " "
          "failure detected by watchdog at work sequence id: 1 PG status: last enqueued work: "
          "547, last completed work: -1",
          "  what():  [PG 1 Rank 1] Process group watchdog thread terminated with exception: [Rank "
          "1] Watchdog caught collective operation timeout: WorkNCCL(...)",
      })
    EXPECT_EQ(kind_of(line), log_error_kind::nccl_timeout) << line;
}

TEST(config_invalid, megatron_rule_texts_as_raised) {
  for (const char* line : {
           "AssertionError: world size (8) is not divisible by total_model_size "
           "(total_model_size=16)",
           "AssertionError: world size (12) is not divisible by tensor model parallel size (8)",
           "AssertionError: world size (16) is not divisible by tensor parallel size (4) times "
           "pipeline parallel size (3) times context parallel size (1)",
           "RuntimeError: world_size (8) is not divisible by tensor_model_parallel_size (4) x "
           "pipeline_model_parallel_size (4) x context_parallel_size (1)",
           "RuntimeError: world_size (8) is not divisible by 16",
           "RuntimeError: data_parallel_size (2) is not divisible by expert_model_parallel_size ",
           "ValueError: num_attention_heads (32) must be a multiple of tensor_model_parallel_size "
           "(3).",
           "ValueError: num_query_groups (8) must be a multiple or divisor of "
           "tensor_model_parallel_size (16).",
           "AssertionError: global batch size (100) is not divisible by micro batch size (3) times "
           "data parallel size (2)",
           "AssertionError: number of microbatches should be at least 1, got 0.",
           "AssertionError: seq-length should be a multiple of 2 * context-parallel-size if "
           "context-parallel-size > 1.",
           "AssertionError: Number of experts should be a multiple of expert model parallel_size.",
           "AssertionError: num_experts must be non None to use expert model parallelism",
           "AssertionError: number of layers should be divisible by the pipeline parallel size",
           "AssertionError: Number of layers should be divisible by the pipeline-model-parallel "
           "size",
           "AssertionError: 7 is not divisible by 2",
           "[rank0]: AssertionError: world size (8) is not divisible by total_model_size "
           "(total_model_size=3)",
       })
    EXPECT_EQ(kind_of(line), log_error_kind::config_invalid) << line;
}

TEST(config_invalid, every_rule_of_the_table_as_raised) {
  // The interleaved schedule refuses a micro-batch count with a RuntimeError
  // whose words name no other phrase: the rule table's text does.
  EXPECT_EQ(kind_of("[rank0]: RuntimeError: The remainder of M (the total micro-batches) divided "
                    "by N (number of contiguous micro-batches in a virtual pipeline stage) should "
                    "be 0, or larger than or equal to the pipeline-parallel size, but it is 1. "
                    "Otherwise, it introduces dependency bubbles in the pipeline and reduces "
                    "throughput."),
            log_error_kind::config_invalid);
  EXPECT_EQ(kind_of("[rank0]: ValueError: The number of contiguous micro-batches in a virtual "
                    "pipeline stageshould range in [PP=4 , M=3]"),
            log_error_kind::config_invalid);
  EXPECT_EQ(kind_of("[rank0]: AssertionError: Must use --overlap-param-gather with "
                    "--overlap-grad-reduce"),
            log_error_kind::config_invalid);
  EXPECT_EQ(kind_of("[rank0]: AssertionError: Bias in Moe is only supported when ETP==1"),
            log_error_kind::config_invalid);
  EXPECT_EQ(kind_of("RuntimeError: CUDA error: an illegal memory access was encountered"),
            log_error_kind::other);
}

TEST(config_invalid, rule_texts_without_the_exception_name) {
  EXPECT_EQ(kind_of("world size (8) is not divisible by total_model_size (total_model_size=3)"),
            log_error_kind::config_invalid);
  EXPECT_EQ(
      kind_of("num_attention_heads (32) must be a multiple of tensor_model_parallel_size (3)."),
      log_error_kind::config_invalid);
}

TEST(config_invalid, bare_assertion_carries_the_failed_condition) {
  const auto log = parse_text(
      "Traceback (most recent call last):\n"
      "  File \"/workspace/megatron/training/arguments.py\", line 412, in validate_args\n"
      "    assert args.hidden_size % args.num_attention_heads == 0\n"
      "AssertionError\n");
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].kind, log_error_kind::config_invalid);
  EXPECT_EQ(log.errors[0].line, 4);
  EXPECT_EQ(log.errors[0].message,
            "AssertionError (assert args.hidden_size % args.num_attention_heads == 0)");
}

TEST(config_invalid, traceback_source_quoting_the_message_is_not_a_second_error) {
  const auto log = parse_text(
      "    assert args.world_size % total_model_size == 0, (\n"
      "        f\"world size ({args.world_size}) is not divisible by total_model_size \"\n"
      "AssertionError: world size (8) is not divisible by total_model_size (total_model_size=3)\n");
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].line, 3);
}

TEST(nan, rerun_state_machine_and_interval_counter) {
  EXPECT_EQ(kind_of("Rank 3, node gpu-17, device 3, iteration 1200: Unexpected result nan "
                    "(message='found NaN in local forward loss calculation')"),
            log_error_kind::nan);
  EXPECT_EQ(kind_of("RuntimeError: Rank 0, node n1, device 0, iteration 7: Unexpected result inf "
                    "(message='found Inf in local forward loss calculation')"),
            log_error_kind::nan);
  EXPECT_EQ(kind_of("AssertionError: Rank 2: found NaN in local grad norm in backward pass before "
                    "data-parallel communication collective. Device: 2, node: n1"),
            log_error_kind::nan);
  const auto log = parse_text(
      " iteration       20/     100 | elapsed time per iteration (ms): 10.0 | number of skipped "
      "iterations:   2 | number of nan iterations:   2 |\n"
      " iteration       30/     100 | elapsed time per iteration (ms): 10.0 | number of skipped "
      "iterations:   0 | number of nan iterations:   0 |\n");
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].kind, log_error_kind::nan);
  EXPECT_EQ(log.errors[0].line, 1);
  EXPECT_EQ(log.errors[0].message, "2 nan iteration(s) in the interval ending at iteration 20");
  ASSERT_EQ(log.iterations.size(), 2u);
  EXPECT_EQ(log.iterations[0].nan_iterations, 2);
  EXPECT_EQ(log.iterations[1].nan_iterations, 0);
}

TEST(other, unknown_exceptions_and_a_lone_child_failure) {
  EXPECT_EQ(kind_of("RuntimeError: CUDA error: an illegal memory access was encountered"),
            log_error_kind::other);
  EXPECT_EQ(kind_of("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/"
                    "c10d/NCCLUtils.hpp:275, unhandled system error"),
            log_error_kind::other);
  EXPECT_EQ(kind_of("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "),
            log_error_kind::other);
}

TEST(other, child_failure_after_a_real_error_is_not_repeated) {
  const auto log = parse_text(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.\n"
      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0\n"
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n");
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].kind, log_error_kind::oom);
}

TEST(not_errors, warnings_noise_and_prose) {
  for (const char* line : {
           "[1724676992.111700] [sse-lg-112-41:58364:f]        vfs_fuse.c:281  UCX  ERROR "
           "inotify_add_watch(/tmp) failed: No space left on device",
           "[rank2]:[W init.cpp:767] Warning: nvfuser is no longer supported in torch script",
           "/usr/lib/python3/site-packages/torch/cuda/memory.py:330: UserWarning: "
           "torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats",
           "WARNING: vocab size is not divisible by 128, padding",
           "# ends in torch.cuda.OutOfMemoryError (old-format OOM message)",
           "Traceback (most recent call last):",
           "  File \"/ocean/Megatron-LM/megatron/training.py\", line 154, in pretrain",
           "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0",
           "terminate called after throwing an instance of 'c10::DistBackendError'",
           "If reserved memory is >> allocated memory try setting max_split_size_mb",
           "number of nan iterations:   0",
           "ErrorCount: 0",
           "Exception ignored in: <function _MultiProcessingDataLoaderIter.__del__ at 0x7f>",
       })
    EXPECT_EQ(kind_of(line), std::nullopt) << line;
}

TEST(errors, callback_sees_each_error_once) {
  megatron_log_parser p;
  std::vector<log_error_kind> seen;
  p.on_error = [&](const log_error& e) { seen.push_back(e.kind); };
  p.feed("RuntimeError: CUDA error: out of memory\nRuntimeError: CUDA error: out of memory\n"
         "[E ProcessGroupNCCL.cpp:495] Some NCCL operations have failed or timed out.\n");
  p.finish();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], log_error_kind::oom);
  EXPECT_EQ(seen[1], log_error_kind::nccl_timeout);
}

TEST(errors, kind_names) {
  EXPECT_STREQ(to_string(log_error_kind::oom), "oom");
  EXPECT_STREQ(to_string(log_error_kind::nccl_timeout), "nccl_timeout");
  EXPECT_STREQ(to_string(log_error_kind::config_invalid), "config_invalid");
  EXPECT_STREQ(to_string(log_error_kind::nan), "nan");
  EXPECT_STREQ(to_string(log_error_kind::other), "other");
}

TEST(errors, exception_type_reads_dotted_and_cxx_names) {
  EXPECT_EQ(exception_type("torch.cuda.OutOfMemoryError: CUDA out of memory."),
            "torch.cuda.OutOfMemoryError");
  EXPECT_EQ(exception_type("AssertionError"), "AssertionError");
  EXPECT_EQ(exception_type("c10::DistBackendError: boom"), "c10::DistBackendError");
  EXPECT_EQ(exception_type("ERROR:torch.distributed:failed"), std::nullopt);
  EXPECT_EQ(exception_type("Errors were found"), std::nullopt);
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

TEST(config_invalid, argparse_rejection_but_not_slurm_errors) {
  EXPECT_EQ(kind_of("pretrain_gpt.py: error: unrecognized arguments: --tensor-parallel 2"),
            log_error_kind::config_invalid);
  EXPECT_EQ(kind_of("slurmstepd: error: *** STEP 1809579.0 ON r8i3n1 CANCELLED AT "
                    "2021-05-23T08:45:57 ***"),
            std::nullopt);
}

TEST(config_invalid, a_distant_assert_source_is_not_attached) {
  const auto log = parse_text("    assert x == 1\nline\nline\nline\nline\nline\nAssertionError\n");
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].message, "AssertionError");
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

TEST(errors, a_failed_torchrun_job_reports_its_cause_once) {
  const auto log = parse_text(
      "[rank3]: Traceback (most recent call last):\n"
      "[rank3]:   File \"/workspace/Megatron-LM/pretrain_gpt.py\", line 278, in <module>\n"
      "[rank3]:     pretrain(\n"
      "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 3 has "
      "a total capacity of 79.11 GiB of which 312.00 MiB is free.\n"
      "E11-22 05:33:30 12922 torch/distributed/elastic/multiprocessing/api.py:869] failed "
      "(exitcode: 1) local_rank: 3 (pid: 12922) of binary: /usr/bin/python\n"
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
      "============================================================\n"
      "pretrain_gpt.py FAILED\n"
      "Root Cause (first observed failure):\n"
      "  exitcode  : 1 (pid: 12922)\n");
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].kind, log_error_kind::oom);
  EXPECT_EQ(log.errors[0].line, 4);
}

TEST(errors, a_lost_peer_is_other_with_its_reason) {
  const auto log = parse_text(
      "[rank5]: RuntimeError: NCCL communicator was aborted on rank 5. Original reason for failure "
      "was: NCCL error: remote process exited or there was a network error\n");
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].kind, log_error_kind::other);
  EXPECT_NE(log.errors[0].message.find("remote process exited"), std::string::npos);
}

} // namespace
} // namespace paratune
