#include "tools/paratune-sim/megatron_output.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <unistd.h>

namespace paratune::sim {

namespace {

std::string py_bool(bool b) { return b ? "True" : "False"; }

/// Python's str() of a float: the shortest text that reads back the same
/// value, with ".0" on whole numbers (48465.275390625, 75682.0).
std::string py_float(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eE") == std::string::npos)
    s += ".0";
  return s;
}

constexpr double mib = 1024.0 * 1024.0;

} // namespace

megatron_version version_traits(const std::string& name) {
  megatron_version v;
  v.name = name;
  if (name == "0.5") {
    v.timestamp = false;
    v.short_lr = true;
    v.theory_form = 6;
    v.old_assertions = true;
  } else if (name == "0.8") {
    v.microbatches_logger = true;
    v.theory_form = 7;
    v.old_assertions = true;
    v.glog_timestamps = true;
  } else if (name == "0.15" || name == "0.16") {
    v.microseconds = name == "0.16";
    v.two_decimal_memory = name == "0.16";
    v.hierarchical_cp = true;
    v.microbatches_logger = true;
    v.theory_form = 15;
    v.transformer_block = true;
    v.torch_oom_class = true;
    v.glog_timestamps = true;
  } else {
    v.name.clear();
  }
  return v;
}

rule_violation first_violation(const megatron_version& v, const megatron_launch& launch,
                               int world) {
  using std::to_string;
  const auto& m = launch.model;
  const auto& c = launch.config;
  if (v.old_assertions) {
    // arguments.py of 0.6 checks TP alone first, then the model-parallel
    // product; TransformerConfig only accepts a query-group count that TP
    // divides.
    const auto* world_row = &megatron_rule_info(megatron_rule::world_divisible);
    if (world % c.tp != 0)
      return {"world_divisible", "world size (" + to_string(world)
                                   + ") is not divisible by tensor model parallel size ("
                                   + to_string(c.tp) + ")", world_row};
    if (world % (c.tp * c.pp * c.cp) != 0)
      return {"world_divisible",
              "world size (" + to_string(world) + ") is not divisible by tensor parallel size ("
                + to_string(c.tp) + ") times pipeline parallel size (" + to_string(c.pp)
                + ") times context parallel size (" + to_string(c.cp) + ")", world_row};
    if (m.heads % c.tp == 0 && m.kv_heads % c.tp != 0)
      return {"query_groups_tp", "num_query_groups (" + to_string(m.kv_heads)
                                   + ") must be a multiple of tensor_model_parallel_size ("
                                   + to_string(c.tp) + ").",
              &megatron_rule_info(megatron_rule::query_groups_tp)};
  }
  const auto all = check_megatron_launch(launch, world);
  if (all.empty())
    return {};
  rule_violation first = all.front();
  if (v.old_assertions && first.rule == "layers_pp")
    first.message = "number of layers should be divisible by the pipeline parallel size";
  return first;
}

megatron_output::megatron_output(const megatron_launch& launch, int world_size,
                                 megatron_version version, bool log_throughput)
  : launch_(launch), world_size_(world_size), version_(std::move(version)),
    log_throughput_(log_throughput) {
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
  if (version_.microseconds) {
    const auto us = duration_cast<microseconds>(now.time_since_epoch()).count() % 1000000;
    std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(us));
    s += buf;
  }
  return s;
}

/// glog's prefix time, "1218 20:27:21.426415540" (month, day, nanoseconds).
std::string megatron_output::glog_stamp() const {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t t = system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[48];
  std::strftime(buf, sizeof buf, "%m%d %H:%M:%S", &tm);
  const auto ns = duration_cast<nanoseconds>(now.time_since_epoch()).count() % 1000000000;
  char out[64];
  std::snprintf(out, sizeof out, "%s.%09lld", buf, static_cast<long long>(ns));
  return out;
}

int megatron_output::global_rank(int tp_rank, int cp_rank, int stage) const {
  // Megatron's default rank order is tp-cp-ep-dp-pp: TP fastest.
  const auto& c = launch_.config;
  return tp_rank + c.tp * (cp_rank + c.cp * c.data_parallel(world_size_) * stage);
}

void megatron_output::startup(double params_per_rank) {
  const auto& c = launch_.config;
  const int dp = c.data_parallel(world_size_);
  if (version_.hierarchical_cp)
    std::printf("using world size: %d, data-parallel size: %d, context-parallel size: %d, "
                "hierarchical context-parallel sizes: None, tensor-model-parallel size: %d, "
                "pipeline-model-parallel size: %d\n",
                world_size_, dp, c.cp, c.tp, c.pp);
  else
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
    {"log_throughput", py_bool(log_throughput_)},
    {"train_iters", std::to_string(launch_.train_iters)},
    {"log_interval", std::to_string(launch_.log_interval)}};
  std::printf("------------------------ arguments ------------------------\n");
  for (const auto& [k, v] : args)
    std::printf("  %s %s %s\n", k.c_str(), std::string(48 - std::min<size_t>(47, k.size()), '.').c_str(),
                v.c_str());
  std::printf("-------------------- end of arguments ---------------------\n");
  std::printf(version_.microbatches_logger ? "setting number of microbatches to constant %d\n"
                                           : "setting number of micro-batches to constant %d\n",
              c.micro_batches(world_size_));
  for (int t = 0; t < c.tp; ++t)
    for (int p = 0; p < c.pp; ++p)
      std::printf(" > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %.0f\n",
                  t, p, params_per_rank);
  std::printf("[after megatron is initialized] datetime: %s \n", timestamp().c_str());
  std::printf("[after model, optimizer, and learning rate scheduler are built] datetime: %s \n",
              timestamp().c_str());
  std::printf("[after dataloaders are built] datetime: %s \n", timestamp().c_str());
  std::printf("[before the start of training step] datetime: %s \n", timestamp().c_str());
  std::fflush(stdout);
}

void megatron_output::iteration(int64_t it, const iteration_values& v) {
  const auto& c = launch_.config;
  consumed_ += int64_t(c.gbs) * v.iterations;
  const bool all_skipped = v.skipped >= v.iterations;
  std::string line;
  char buf[256];
  if (version_.timestamp)
    line += " [" + timestamp() + "]";
  std::snprintf(buf, sizeof buf, " iteration %8lld/%8d | consumed samples: %12lld | "
                "elapsed time per iteration (ms): %.1f |",
                static_cast<long long>(it), launch_.train_iters,
                static_cast<long long>(consumed_), v.elapsed_ms);
  line += buf;
  if (log_throughput_) {
    std::snprintf(buf, sizeof buf, " throughput per GPU (TFLOP/s/GPU): %.1f |", v.tflops);
    line += buf;
  }
  // The scheduler only steps on successful iterations.
  const int64_t stepped = std::max<int64_t>(0, it - v.skipped);
  const double lr = all_skipped ? 0.0 : 3.0e-4 * std::min<int64_t>(stepped, 100) / 100.0;
  std::snprintf(buf, sizeof buf, version_.short_lr ? " learning rate: %.3E |" : " learning rate: %.6E |", lr);
  line += buf;
  std::snprintf(buf, sizeof buf, " global batch size: %5d |", c.gbs);
  line += buf;
  if (!all_skipped) {
    std::snprintf(buf, sizeof buf, " lm loss: %.6E |", v.loss);
    line += buf;
  }
  for (int i = 0; i < v.skipped && launch_.prec == precision::fp16; ++i)
    loss_scale_ /= 2;
  std::snprintf(buf, sizeof buf, " loss scale: %.1f |",
                launch_.prec == precision::fp16 ? loss_scale_ : 1.0);
  line += buf;
  if (!all_skipped) {
    std::snprintf(buf, sizeof buf, " grad norm: %.3f |", 2.0 + 6.0 / double(it));
    line += buf;
  }
  std::snprintf(buf, sizeof buf, " number of skipped iterations: %3d | number of nan iterations: %3d |",
                v.skipped, 0);
  line += buf;
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void megatron_output::theoretical_memory(int micro_batches) {
  const auto& m = launch_.model;
  const auto& c = launch_.config;
  const double h = m.hidden, s = c.seq, b = c.mbs, t = c.tp, p = c.pp;
  const double vocab = double(m.padded_vocab(c.tp));
  const double embedding = vocab * h * (m.tied_embeddings ? 1 : 2);
  const double layers = m.parameters() - embedding;
  const double output = !m.tied_embeddings && c.pp == 1 ? vocab * h : 0;
  const double shard = (layers / p + vocab * h + output) / t;
  std::printf(version_.transformer_block
                ? "Number of parameters in transformer block in billions: % .2f\n"
                : "Number of parameters in transformer layers in billions: % .2f\n",
              layers / 1e9);
  std::printf("Number of parameters in embedding layers in billions: %.2f\n", embedding / 1e9);
  std::printf("Total number of parameters in billions: %.2f\n", m.parameters() / 1e9);
  std::printf("Number of parameters in most loaded shard in billions: %.4f\n", shard / 1e9);
  if (c.pp > 1)
    std::printf("Number of parameters in other shards in billions: %.4f\n", layers / p / t / 1e9);
  const int dp = std::max(1, c.data_parallel(world_size_));
  const double bytes = c.dist_opt ? 6 + 12.0 / dp : 18;
  const double weights_mb = shard * bytes / mib;
  const bool sp_selective = c.sp && c.recompute == recompute_mode::selective;
  if (version_.theory_form == 7 && !sp_selective) {
    std::printf("Theoretical memory footprints: weight and optimizer=%.2f MB\n", weights_mb);
    return;
  }
  if (version_.theory_form == 6 && !sp_selective)
    return;
  // Megatron's estimate: (18 + 4 ffn/h)/t per s*b*h with SP, 10 + 24/t
  // without; stage 0 holds p micro-batches of L/p layers.
  const double per_layer = c.sp ? s * b * h * (18 + 4.0 * m.ffn / h) / t
                                : s * b * h * (10 + 24 / t);
  double activation = per_layer * m.layers * std::min(1.0, double(micro_batches) / p);
  if (c.pp == 1)
    activation += 4 * s * b * h * (1 + vocab / h) / t;
  if (version_.theory_form == 15)
    std::printf(c.sp ? "compute_activation_memory with SP\n"
                     : "compute_activation_memory_without_sp\n");
  std::printf("Activation memory footprint per transformer layer: %.1f MB\n", per_layer / mib);
  std::printf("Theoretical memory footprints: weight and optimizer=%.2f MB, activation=%.2f MB, "
              "total=%.2f MB\n",
              weights_mb, activation / mib, weights_mb + activation / mib);
  std::fflush(stdout);
}

void megatron_output::memory(const memory_breakdown& stage, int64_t it) {
  // The caching allocator hands out 512-byte blocks from 2 MiB segments;
  // the CUDA context is not reserved memory.
  const double steady = stage.weights_mib + stage.gradients_mib + stage.optimizer_mib;
  const double max_reserved = std::max(2.0, std::round((stage.total_mib - 600) / 2) * 2);
  const double reserved = max_reserved;
  const double allocated = std::round((steady + 0.1 * stage.activations_mib) * 2048) / 2048;
  const double max_allocated = std::round(max_reserved * 0.96 * 2048) / 2048;
  const auto& c = launch_.config;
  for (int s = 0; s < c.cp; ++s)
    for (int t = 0; t < c.tp; ++t) {
      const int rank = global_rank(t, s, stage.stage);
      if (version_.two_decimal_memory)
        std::printf("[Rank %d] (after %lld iterations) memory (MB) | allocated: %.2f | "
                    "max allocated: %.2f | reserved: %.2f | max reserved: %.2f\n",
                    rank, static_cast<long long>(it), allocated, max_allocated, reserved,
                    max_reserved);
      else
        std::printf("[Rank %d] (after %lld iterations) memory (MB) | allocated: %s | "
                    "max allocated: %s | reserved: %s | max reserved: %s\n",
                    rank, static_cast<long long>(it), py_float(allocated).c_str(),
                    py_float(max_allocated).c_str(), py_float(reserved).c_str(),
                    py_float(max_reserved).c_str());
    }
  std::fflush(stdout);
}

void megatron_output::traceback(std::FILE* to, int rank) {
  std::fprintf(to, "[rank%d]: Traceback (most recent call last):\n", rank);
  std::fprintf(to, "[rank%d]:   File \"/workspace/Megatron-LM/pretrain_gpt.py\", line 278, in <module>\n", rank);
  std::fprintf(to, "[rank%d]:     pretrain(\n", rank);
}

void megatron_output::launcher_epilogue(std::FILE* to, int local_rank) {
  const int pid = int(getpid());
  if (version_.glog_timestamps) {
    // glog-style torchrun logging: microseconds and the launcher's pid.
    const std::string stamp = glog_stamp();
    std::fprintf(to, "E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
                "local_rank: %d (pid: %d) of binary: /usr/bin/python\n",
                stamp.substr(0, stamp.size() - 3).c_str(), pid, local_rank, pid + 1 + local_rank);
  } else {
    std::fprintf(to, "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) "
                "local_rank: %d (pid: %d) of binary: /usr/bin/python\n",
                local_rank, pid + 1 + local_rank);
  }
  std::fprintf(to, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n");
  std::fprintf(to, "============================================================\n");
  std::fprintf(to, "pretrain_gpt.py FAILED\n");
  std::fprintf(to, "Root Cause (first observed failure):\n");
  std::fprintf(to, "  exitcode  : 1 (pid: %d)\n", pid + 1 + local_rank);
  std::fflush(to);
}

void megatron_output::invalid_configuration(const rule_violation& v) {
  // Python writes the traceback to stderr and ends it with the exception's
  // line; torchrun then reports the failed child, also on stderr.
  traceback(stderr, 0);
  const std::string line = v.python_line();
  std::fprintf(stderr, "[rank0]: %s\n", line.c_str());
  std::fflush(stderr);
  launcher_epilogue(stderr, 0);
}

void megatron_output::out_of_memory(int rank, int local_rank, double capacity_gib,
                                    double in_use_gib, double tried_gib) {
  traceback(stdout, rank);
  const double free_gib = std::max(0.0, capacity_gib - in_use_gib);
  std::printf("[rank%d]: %s: CUDA out of memory. Tried to allocate %.2f GiB. "
              "GPU %d has a total capacity of %.2f GiB of which %.2f MiB is free. Including "
              "non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated "
              "memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but "
              "unallocated. If reserved but unallocated memory is large try setting "
              "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
              "documentation for Memory Management  "
              "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n",
              rank, version_.torch_oom_class ? "torch.OutOfMemoryError" : "torch.cuda.OutOfMemoryError",
              tried_gib, local_rank, capacity_gib, free_gib * 1024, in_use_gib,
              in_use_gib * 0.97, in_use_gib * 0.03 * 1024);
  launcher_epilogue(stdout, local_rank);
}

void megatron_output::nccl_timeout(int rank, int64_t seq) {
  const long long s = static_cast<long long>(seq);
  const int numel = launch_.model.hidden * 1024;
  if (version_.glog_timestamps) {
    std::printf("[rank%d]:[E%s ProcessGroupNCCL.cpp:629] [Rank %d] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=%lld, OpType=ALLREDUCE, NumelIn=%d, "
                "NumelOut=%d, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n",
                rank, glog_stamp().c_str(), rank, s, numel, numel);
    std::printf("[rank%d]:[E%s ProcessGroupNCCL.cpp:1664] [PG 1 Rank %d] Exception (either an "
                "error or timeout) detected by watchdog at work: %lld, last enqueued NCCL work: "
                "%lld, last completed NCCL work: %lld.\n",
                rank, glog_stamp().c_str(), rank, s, s + 2, s - 1);
  } else {
    std::printf("[rank%d]:[E ProcessGroupNCCL.cpp:754] [Rank %d] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=%lld, OpType=ALLREDUCE, NumelIn=%d, "
                "NumelOut=%d, Timeout(ms)=600000) ran for 600381 milliseconds before timing out.\n",
                rank, rank, s, numel, numel);
    std::printf("[rank%d]:[E ProcessGroupNCCL.cpp:495] Some NCCL operations have failed or timed "
                "out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations "
                "might run on corrupted/incomplete data.\n",
                rank);
  }
  launcher_epilogue(stdout, rank % 8);
}

void megatron_output::node_failure(int rank) {
  std::printf("[rank%d]: RuntimeError: NCCL communicator was aborted on rank %d. Original reason "
              "for failure was: NCCL error: remote process exited or there was a network error\n",
              rank, rank);
  launcher_epilogue(stdout, rank % 8);
}

void megatron_output::training_done(int64_t iterations) {
  std::printf("[after training is done] datetime: %s \n", timestamp().c_str());
  std::printf("exiting program at iteration %lld\n", static_cast<long long>(iterations));
  std::fflush(stdout);
}

} // namespace paratune::sim
