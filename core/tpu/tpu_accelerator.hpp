#pragma once

#include <optional>
#include <string_view>

#include "core/tpu/tpu_topology.hpp"

namespace paratune {

/// A Cloud TPU generation, as accelerator type names spell it.
enum class tpu_generation { v4, v5e, v5p, v6e };

const char* to_string(tpu_generation g);

/// A Cloud TPU accelerator type ("v5e-256", "v5litepod-16", "v5p-128",
/// "v4-384", "v6e-64") read as chips and the topology Cloud TPU gives them.
struct tpu_accelerator {
  tpu_generation generation = tpu_generation::v5e;
  int chips = 0;
  tpu_slice slice;  ///< the default topology, e.g. 4x4x8 for v5p-256
};

/// True when `text` reads as an accelerator type rather than a topology:
/// it names a generation before a '-'.
bool looks_like_accelerator(std::string_view text);

/// Parses an accelerator type. v4 and v5p names count TensorCores, two per
/// chip; v5e and v6e names count chips. Throws input_error naming what is
/// wrong (an unknown generation, a count no slice of that generation has).
tpu_accelerator parse_accelerator(std::string_view text, int num_slices = 1);

/// The generation a cluster's device is ("TPU v5p" -> v5p), if any.
std::optional<tpu_generation> generation_of_device(std::string_view device_name);

} // namespace paratune
