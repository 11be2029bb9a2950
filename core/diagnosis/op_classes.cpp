#include "core/diagnosis/op_classes.hpp"

#include <algorithm>
#include <cstdio>

#include "core/text.hpp"

namespace paratune {

namespace {

bool contains_any(const std::string& text, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (text.find(k) != std::string::npos)
      return true;
  return false;
}

bool is_memory_resource(const std::string& bound) {
  const auto b = lower(bound);
  return contains_any(b, {"hbm", "vmem", "cmem", "sram", "shm", "l1", "memory"});
}

double best_utilization(const op_evidence& op) {
  double u = std::max(op.flops_utilization.value_or(0), op.hbm_bw_utilization.value_or(0));
  return std::max(u, op.roofline_efficiency.value_or(0));
}

// GPU kernels carry no roofline: their names say what they are.
op_class classify_kernel_name(const std::string& n) {
  if (contains_any(n, {"gemm", "cutlass", "xmma", "cublas", "matmul", "flash", "fmha", "attn",
                       "conv", "wgmma", "sm80_", "sm90_"}))
    return op_class::compute;
  if (contains_any(n, {"elementwise", "vectorized", "reduce", "softmax", "norm", "memcpy",
                       "memset", "copy", "cat", "index", "dropout", "adam", "multi_tensor"}))
    return op_class::hbm_bandwidth;
  return op_class::unknown;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * fraction);
  return buf;
}

} // namespace

const char* to_string(op_class c) {
  switch (c) {
    case op_class::compute: return "compute";
    case op_class::hbm_bandwidth: return "hbm_bandwidth";
    case op_class::communication: return "communication";
    case op_class::host_transfer: return "host_transfer";
    case op_class::unknown: return "unknown";
  }
  return "?";
}

bool parse_op_class(std::string_view text, op_class& out) {
  for (const op_class c : all_op_classes)
    if (text == to_string(c)) {
      out = c;
      return true;
    }
  return false;
}

bool looks_collective(std::string_view name, std::string_view category) {
  const auto text = lower(name) + " " + lower(category);
  return contains_any(text, {"all-reduce", "all-gather", "reduce-scatter", "all-to-all",
                             "allreduce", "allgather", "reducescatter", "alltoall",
                             "collective", "send", "recv", "nccl", "psum", "ppermute"});
}

op_class classify_op(const op_evidence& op) {
  const auto bound = lower(op.bound_by);
  // A copy to or from host memory waits on the host link, not on HBM.
  if (bound == "host")
    return op_class::host_transfer;
  // A collective matmul (all-gather fused into the einsum) that runs at its
  // compute roofline is compute, whatever its name says.
  if (op.collective && bound != "compute") {
    if (is_memory_resource(bound) && best_utilization(op) >= collective_busy_threshold)
      return op_class::hbm_bandwidth;
    return op_class::communication;
  }
  if (bound == "compute")
    return op_class::compute;
  if (is_memory_resource(bound))
    return op_class::hbm_bandwidth;
  if (!bound.empty())
    return op_class::unknown;
  return classify_kernel_name(lower(op.name) + " " + lower(op.category));
}

std::string explain_class(const op_evidence& op, op_class c) {
  const std::string bound = op.bound_by.empty() ? "no roofline" : "bound by " + op.bound_by;
  if (c == op_class::host_transfer)
    return bound + ": copies to or from host memory (XLA memory space S(5)) over the host link";
  const std::string util = percent(best_utilization(op));
  if (op.collective && c == op_class::communication)
    return "collective, " + bound + " at " + util
           + " of peak: waiting on the interconnect";
  if (op.collective)
    return "collective, " + bound + " at " + util + " of peak: moving its buffers through HBM";
  if (op.bound_by.empty())
    return std::string("kernel name reads as ") + to_string(c);
  return bound + " at " + util + " of peak";
}

} // namespace paratune
