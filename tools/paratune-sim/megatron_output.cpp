#include "tools/paratune-sim/megatron_output.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <unistd.h>

namespace paratune::sim {

namespace {

std::string py_bool(bool b) { return b ? "True" : "False"; }

} // namespace

megatron_output::megatron_output(const megatron_launch& launch, int world_size,
                                 std::string version)
  : launch_(launch), world_size_(world_size), version_(std::move(version)) {
}

std::string megatron_output::timestamp() const {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t t = system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[48];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  std::string s = buf;
  if (version_ == "0.16") {
    const auto us = duration_cast<microseconds>(now.time_since_epoch()).count() % 1000000;
    std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(us));
    s += buf;
  }
  return s;
}

void megatron_output::startup(double params_on_first_rank) {
  const auto& c = launch_.config;
  const int dp = c.data_parallel(world_size_);
  std::printf("using world size: %d, data-parallel size: %d, context-parallel size: %d "
              "tensor-model-parallel size: %d, pipeline-model-parallel size: %d \n",
              world_size_, dp, c.cp, c.tp, c.pp);
  const auto& m = launch_.model;
  std::map<std::string, std::string> args = {
    {"num_layers", std::to_string(m.layers)}, {"hidden_size", std::to_string(m.hidden)},
    {"ffn_hidden_size", std::to_string(m.ffn)},
    {"num_attention_heads", std::to_string(m.heads)},
    {"num_query_groups", std::to_string(m.kv_heads)},
    {"padded_vocab_size", std::to_string(m.padded_vocab(c.tp))},
    {"tensor_model_parallel_size", std::to_string(c.tp)},
    {"pipeline_model_parallel_size", std::to_string(c.pp)},
    {"context_parallel_size", std::to_string(c.cp)},
    {"expert_model_parallel_size", std::to_string(c.ep)},
    {"data_parallel_size", std::to_string(dp)}, {"world_size", std::to_string(world_size_)},
    {"micro_batch_size", std::to_string(c.mbs)}, {"global_batch_size", std::to_string(c.gbs)},
    {"seq_length", std::to_string(c.seq)}, {"sequence_parallel", py_bool(c.sp)},
    {"recompute_granularity", c.recompute == recompute_mode::none ? "None"
                                                                   : to_string(c.recompute)},
    {"use_distributed_optimizer", py_bool(c.dist_opt)},
    {"overlap_grad_reduce", py_bool(c.overlap_grad)},
    {"overlap_param_gather", py_bool(c.overlap_param)},
    {"cross_entropy_loss_fusion", py_bool(c.fused_ce)},
    {"swiglu", py_bool(m.swiglu)}, {"fp16", py_bool(launch_.prec == precision::fp16)},
    {"bf16", py_bool(launch_.prec != precision::fp16)},
    {"params_dtype", launch_.prec == precision::fp16 ? "torch.float16" : "torch.bfloat16"},
    {"train_iters", std::to_string(launch_.train_iters)},
    {"log_interval", std::to_string(launch_.log_interval)}};
  std::printf("------------------------ arguments ------------------------\n");
  for (const auto& [k, v] : args)
    std::printf("  %s %s %s\n", k.c_str(), std::string(48 - std::min<size_t>(47, k.size()), '.').c_str(),
                v.c_str());
  std::printf("-------------------- end of arguments ---------------------\n");
  std::printf("setting number of micro-batches to constant %d\n", c.micro_batches(world_size_));
  std::printf(" > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %.0f\n",
              params_on_first_rank);
  std::printf("[after megatron is initialized] datetime: %s \n", timestamp().c_str());
  std::printf("[after model, optimizer, and learning rate scheduler are built] datetime: %s \n",
              timestamp().c_str());
  std::printf("[before the start of training step] datetime: %s \n", timestamp().c_str());
  std::fflush(stdout);
}

void megatron_output::iteration(int64_t it, double elapsed_ms, double tflops, double loss,
                                bool skipped) {
  const auto& c = launch_.config;
  consumed_ += c.gbs;
  const bool old = version_ == "0.5";
  std::string line;
  char buf[256];
  if (!old)
    line += " [" + timestamp() + "]";
  std::snprintf(buf, sizeof buf, " iteration %8lld/%8d | consumed samples: %12lld | "
                "elapsed time per iteration (ms): %.1f |",
                static_cast<long long>(it), launch_.train_iters,
                static_cast<long long>(consumed_), elapsed_ms);
  line += buf;
  if (!old) {
    std::snprintf(buf, sizeof buf, " throughput per GPU (TFLOP/s/GPU): %.1f |", tflops);
    line += buf;
  }
  const double lr = skipped ? 0.0 : 3.0e-4 * std::min<int64_t>(it, 100) / 100.0;
  std::snprintf(buf, sizeof buf, old ? " learning rate: %.3E |" : " learning rate: %.6E |", lr);
  line += buf;
  std::snprintf(buf, sizeof buf, " global batch size: %5d |", c.gbs);
  line += buf;
  if (!skipped) {
    std::snprintf(buf, sizeof buf, " lm loss: %.6E |", loss);
    line += buf;
  }
  if (launch_.prec == precision::fp16 && skipped)
    loss_scale_ /= 2;
  std::snprintf(buf, sizeof buf, " loss scale: %.1f |",
                launch_.prec == precision::fp16 ? loss_scale_ : 1.0);
  line += buf;
  if (!skipped) {
    std::snprintf(buf, sizeof buf, " grad norm: %.3f |", 2.0 + 6.0 / double(it));
    line += buf;
  }
  std::snprintf(buf, sizeof buf, " number of skipped iterations: %3d | number of nan iterations: %3d |",
                skipped ? 1 : 0, 0);
  line += buf;
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void megatron_output::memory(int rank, int64_t it, double allocated, double max_allocated,
                             double reserved, double max_reserved) {
  const char* f = version_ == "0.16"
    ? "[Rank %d] (after %lld iterations) memory (MB) | allocated: %.2f | max allocated: %.2f | "
      "reserved: %.2f | max reserved: %.2f\n"
    : "[Rank %d] (after %lld iterations) memory (MB) | allocated: %.9g | max allocated: %.9g | "
      "reserved: %.1f | max reserved: %.1f\n";
  std::printf(f, rank, static_cast<long long>(it), allocated, max_allocated, reserved, max_reserved);
  std::fflush(stdout);
}

void megatron_output::traceback(int rank) {
  std::printf("[rank%d]: Traceback (most recent call last):\n", rank);
  std::printf("[rank%d]:   File \"/workspace/Megatron-LM/pretrain_gpt.py\", line 278, in <module>\n", rank);
  std::printf("[rank%d]:     pretrain(\n", rank);
}

void megatron_output::launcher_epilogue(int local_rank) {
  std::printf("E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
              "local_rank: %d (pid: %d) of binary: /usr/bin/python\n",
              timestamp().substr(5).c_str(), int(getpid()), local_rank, int(getpid()));
  std::printf("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n");
  std::printf("============================================================\n");
  std::printf("pretrain_gpt.py FAILED\n");
  std::printf("Root Cause (first observed failure):\n");
  std::printf("  exitcode  : 1 (pid: %d)\n", int(getpid()));
  std::fflush(stdout);
}

void megatron_output::invalid_configuration(const rule_violation& v) {
  // TransformerConfig raises ValueError; arguments.py and the batch
  // calculator assert.
  const bool value_error = v.rule == "heads_tp" || v.rule == "query_groups_tp";
  traceback(0);
  if (v.rule == "hidden_heads")
    std::printf("[rank0]: AssertionError\n");
  else
    std::printf("[rank0]: %s: %s\n", value_error ? "ValueError" : "AssertionError",
                v.message.c_str());
  launcher_epilogue(0);
}

void megatron_output::out_of_memory(int rank, int local_rank, double capacity_gib,
                                    double in_use_gib, double tried_gib) {
  traceback(rank);
  const double free_gib = std::max(0.0, capacity_gib - in_use_gib);
  std::printf("[rank%d]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. "
              "GPU %d has a total capacity of %.2f GiB of which %.2f MiB is free. Including "
              "non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated "
              "memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but "
              "unallocated. If reserved but unallocated memory is large try setting "
              "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
              "documentation for Memory Management  "
              "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n",
              rank, tried_gib, local_rank, capacity_gib, free_gib * 1024, in_use_gib,
              in_use_gib * 0.97, in_use_gib * 0.03 * 1024);
  launcher_epilogue(local_rank);
}

void megatron_output::nccl_timeout(int rank, int64_t seq) {
  std::printf("[rank%d]:[E%s ProcessGroupNCCL.cpp:629] [Rank %d] Watchdog caught collective "
              "operation timeout: WorkNCCL(SeqNum=%lld, OpType=ALLREDUCE, NumelIn=%d, "
              "NumelOut=%d, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n",
              rank, timestamp().substr(5).c_str(), rank, static_cast<long long>(seq),
              launch_.model.hidden * 1024, launch_.model.hidden * 1024);
  std::printf("[rank%d]:[E%s ProcessGroupNCCL.cpp:1664] [PG 1 Rank %d] Exception (either an error "
              "or timeout) detected by watchdog at work: %lld, last enqueued NCCL work: %lld, "
              "last completed NCCL work: %lld.\n",
              rank, timestamp().substr(5).c_str(), rank, static_cast<long long>(seq),
              static_cast<long long>(seq + 2), static_cast<long long>(seq - 1));
  launcher_epilogue(rank % 8);
}

void megatron_output::node_failure(int rank) {
  std::printf("[rank%d]: RuntimeError: NCCL communicator was aborted on rank %d. Original reason "
              "for failure was: NCCL error: remote process exited or there was a network error\n",
              rank, rank);
  launcher_epilogue(rank % 8);
}

void megatron_output::training_done(int64_t iterations) {
  std::printf("[after training is done] datetime: %s \n", timestamp().c_str());
  std::printf("exiting program at iteration %lld\n", static_cast<long long>(iterations));
  std::fflush(stdout);
}

} // namespace paratune::sim
