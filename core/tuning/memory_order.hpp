#pragma once

#include "core/training_config.hpp"

namespace paratune {

/// Whether `c` needs at least as much memory per GPU as `than`, from the
/// configurations alone: the same or a larger micro batch (and sequence and
/// global batch), no more recomputation, the same or smaller TP, PP and CP,
/// and none of the memory savings `than` lacks (sequence parallelism, the
/// distributed optimizer, the fused loss, bf16 gradient reduction). Keys
/// whose memory effect has no order (EP, the interleaved schedule, uneven
/// pipeline stages, the block recompute method and its layer count) must
/// be equal, or not apply (a PP of 1 has no stages to balance). The
/// overlaps change no memory the model counts and may differ.
///
/// An out-of-memory run of `than` therefore says `c` cannot fit either
/// (safety_guards::known_failure), and a measured success of `c` says
/// `than` fits.
bool needs_at_least_as_much_memory(const training_config& c, const training_config& than);

} // namespace paratune
