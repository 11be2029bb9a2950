#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paratune {

/// The axes of a JAX device mesh, as MaxText and ASAP's ici_mesh name them.
/// Canonical order is outermost first: `replica` varies slowest (across
/// slices over DCN when there are several), `model` fastest, so that tensor
/// parallel neighbours are ICI neighbours.
enum class mesh_axis { replica, data, fsdp, seq, expert, model };

inline constexpr std::array<mesh_axis, 6> all_mesh_axes = {
    mesh_axis::replica, mesh_axis::data,   mesh_axis::fsdp,
    mesh_axis::seq,     mesh_axis::expert, mesh_axis::model};

const char* to_string(mesh_axis a);

/// Accepts the canonical names and the aliases in use: tensor/mdl (model),
/// context/sequence (seq), and MaxText's option names (ici_fsdp_parallelism,
/// dcn_data_parallelism: the prefix and suffix are dropped); stage is
/// rejected (no pipeline on TPU meshes here).
bool parse_mesh_axis(std::string_view text, mesh_axis& out);

/// Sizes of every axis (1 when absent) plus which axes the user wrote, so
/// that a mesh prints back in the vocabulary it came in ("replica=1" kept).
struct tpu_mesh {
  std::array<int, 6> sizes{1, 1, 1, 1, 1, 1};
  std::vector<mesh_axis> shown;  ///< axes to print even at size 1, canonical order

  int at(mesh_axis a) const { return sizes[static_cast<int>(a)]; }
  /// The axis written as -1 or "auto" (MaxText: it takes every chip the
  /// others leave), if any; its size reads 0 until fill_auto_axis().
  std::optional<mesh_axis> auto_axis() const;
  void set(mesh_axis a, int size);
  /// Product of all axes: the chips the mesh spans.
  int chips() const;
  /// Axes the mesh uses (size > 1) or shows, canonical order.
  std::vector<mesh_axis> listed() const;

  friend bool operator==(const tpu_mesh& a, const tpu_mesh& b) { return a.sizes == b.sizes; }
};

/// Parses "data=8,model=2,seq=16", "data:8 model:2" or ASAP's Python-dict form
/// "{'model': 8, 'data': 16, 'seq': 4}"; one axis may be -1 or auto. Throws input_error naming the part
/// that is wrong (unknown axis, size < 1, an axis given twice).
tpu_mesh parse_mesh(std::string_view text);

/// Sets the auto axis to the chips the other axes leave of `chips`. Throws
/// input_error when they do not divide `chips`.
void fill_auto_axis(tpu_mesh& m, int chips);

/// "data=8,model=2,seq=16" in canonical order (size-1 axes only when shown).
std::string to_string(const tpu_mesh& m);

/// What changed from `from` to `to`, e.g. "data 4->8, model 4->2"; "no change".
std::string describe_mesh_change(const tpu_mesh& from, const tpu_mesh& to);

} // namespace paratune
