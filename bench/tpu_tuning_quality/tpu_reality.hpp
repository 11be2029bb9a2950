#pragma once

// The hidden truth a TPU tuning run is scored against.
//
// `simulated` is paratune-tpu-sim's own: the mesh model with compute, HBM
// and collective times scaled by factors drawn per (seed, model, hardware)
// (sim/tpu/simulated_run.hpp), what `paratune tune` on a TPU experiment
// runs against. `perturbed` is that truth with what the model has no term
// for on top: each mesh's step slowed by 0-12%, drawn per (seed, job,
// mesh), as layout padding, fusion choices and collective placement move
// a real step by a few percent from one mesh to its neighbour. The draw is
// a hash, so every strategy meets the same landscape.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/tpu/tpu_mesh.hpp"
#include "sim/gpu/simulated_cluster.hpp"  // mix64, hash_name: the GPU truth's hashes

namespace paratune::bench {

enum class tpu_reality { simulated, perturbed };

inline const char* to_string(tpu_reality r) {
  return r == tpu_reality::simulated ? "simulated" : "perturbed";
}

inline std::optional<tpu_reality> parse_tpu_reality(std::string_view s) {
  if (s == "simulated")
    return tpu_reality::simulated;
  if (s == "perturbed")
    return tpu_reality::perturbed;
  return std::nullopt;
}

/// A mesh by its sizes alone ("1x4x1x4x1x4", canonical axis order): the
/// same mesh whichever axes it shows at size 1.
inline std::string mesh_key(const tpu_mesh& m) {
  std::string out;
  for (auto a : all_mesh_axes)
    out += (out.empty() ? "" : "x") + std::to_string(m.at(a));
  return out;
}

/// The factor `reality` multiplies the simulator's step time by for
/// `mesh` of job `job` on cluster seed `seed` (1 under `simulated`).
inline double step_factor(tpu_reality reality, const std::string& job, std::uint64_t seed,
                          const tpu_mesh& mesh) {
  if (reality == tpu_reality::simulated)
    return 1;
  const std::uint64_t h = mix64(hash_name(job + "|" + mesh_key(mesh)) + seed);
  return 1 + 0.12 * double(h >> 11) / double(1ULL << 53);
}

} // namespace paratune::bench
