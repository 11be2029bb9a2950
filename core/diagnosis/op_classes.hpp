#pragma once

#include <string>
#include <string_view>

#include "core/diagnosis/diagnosis_evidence.hpp"

namespace paratune {

/// The resource an operation's time goes to. host_transfer: copies to or
/// from host memory, bounded by the host link (PCIe / host DMA).
enum class op_class { compute, hbm_bandwidth, communication, host_transfer, unknown };

/// Every op_class, in declaration order.
inline constexpr op_class all_op_classes[] = {op_class::compute, op_class::hbm_bandwidth,
                                              op_class::communication, op_class::host_transfer,
                                              op_class::unknown};

const char* to_string(op_class c);
/// Reads an op class from its word; false, and `out` untouched, for another.
bool parse_op_class(std::string_view text, op_class& out);

/// A collective waits on the interconnect unless one of its memories is
/// busier than this: Xprof has no ICI bound-by, so a collective whose best
/// utilisation is near zero is time spent waiting for links, while one that
/// streams its buffers at a real share of HBM bandwidth is HBM-bound.
inline constexpr double collective_busy_threshold = 0.05;

/// True for collective names and categories: all-reduce, all-gather,
/// reduce-scatter, all-to-all, collective-permute, async collectives, send/
/// recv, NCCL kernels.
bool looks_collective(std::string_view name, std::string_view category);

/// Classifies one op from its bound-by and utilisations:
/// - bound by Host (the XSpace reader's word for an op whose operand or
///   result is in XLA's host memory space, S(5)): host_transfer, whatever
///   its name;
/// - a collective: communication, unless a memory it is bound by runs at
///   >= collective_busy_threshold of peak (then hbm_bandwidth), or it is
///   bound by Compute (a collective matmul);
/// - bound by Compute: compute; by HBM/VMEM/CMEM/SRAM/Shm: hbm_bandwidth;
/// - no roofline (GPU kernels): GEMM/attention kernels compute,
///   element-wise/copy kernels hbm_bandwidth, else unknown.
op_class classify_op(const op_evidence& op);

/// Why, in words: "collective bound by HBM at 11.0% of peak: HBM-bound".
std::string explain_class(const op_evidence& op, op_class c);

} // namespace paratune
