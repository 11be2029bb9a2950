// A simulated run's profile as a raw XSpace, in the classes generated from
// paratune's own schema (adapters/profile/proto/xplane.proto): the file a
// real MaxText run leaves, so that the tuning loop reads the simulator's
// profiles the way it reads a TPU's.
#include "sim/tpu/xplane_writer.hpp"

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>

#include "adapters/profile/proto/xplane.pb.h"
#include "core/input_error.hpp"

namespace paratune {

namespace {

namespace pb = tensorflow::profiler;

// Stat ids of the simulator's planes (any ids do: readers go by name).
enum xplane_stat_id : std::int64_t {
  stat_device_type = 1,
  stat_peak_tflops,
  stat_peak_hbm_gbps,
  stat_hlo_category,
  stat_flops,
  stat_bytes_accessed,
};

// Event metadata ids: the step program, then the ops, then the steps.
constexpr std::int64_t module_id = 1;
constexpr std::int64_t first_op_id = 2;
constexpr std::int64_t first_step_id = 1000000;

constexpr double bytes_per_gib = 1024.0 * 1024.0 * 1024.0;

void declare_stat(pb::XPlane& plane, std::int64_t id, const char* name) {
  auto& m = (*plane.mutable_stat_metadata())[id];
  m.set_id(id);
  m.set_name(name);
}

void declare_stats(pb::XPlane& plane) {
  declare_stat(plane, stat_device_type, "device_type_string");
  declare_stat(plane, stat_peak_tflops, "peak_teraflops_per_second");
  declare_stat(plane, stat_peak_hbm_gbps, "peak_hbm_bw_gigabytes_per_second");
  declare_stat(plane, stat_hlo_category, "hlo_category");
  declare_stat(plane, stat_flops, "flops");
  declare_stat(plane, stat_bytes_accessed, "bytes_accessed");
}

pb::XStat& add_stat(google::protobuf::RepeatedPtrField<pb::XStat>& stats, std::int64_t id) {
  pb::XStat& s = *stats.Add();
  s.set_metadata_id(id);
  return s;
}

void plane_stats(pb::XPlane& plane, const synthetic_profile& p) {
  add_stat(*plane.mutable_stats(), stat_device_type).set_str_value(p.device_type);
  add_stat(*plane.mutable_stats(), stat_peak_tflops).set_double_value(p.peak_flop_gflops / 1e3);
  add_stat(*plane.mutable_stats(), stat_peak_hbm_gbps)
      .set_double_value(p.peak_hbm_gibps * bytes_per_gib / 1e9);
}

pb::XEventMetadata& declare_event(pb::XPlane& plane, std::int64_t id, const std::string& name) {
  auto& m = (*plane.mutable_event_metadata())[id];
  m.set_id(id);
  m.set_name(name);
  return m;
}

// An op's constant stats: its category, and the FLOPs and bytes one run of
// it moves at its utilisations for `op_ps` picoseconds.
void declare_op(pb::XPlane& plane, std::int64_t id, const synthetic_op& op, double op_ps,
                const synthetic_profile& p) {
  auto& m = declare_event(plane, id, op.name);
  m.set_display_name(op.name);
  add_stat(*m.mutable_stats(), stat_hlo_category).set_str_value(op.category);
  const double seconds = op_ps / 1e12;
  const double flops = op.flops_utilization * p.peak_flop_gflops * 1e9 * seconds;
  const double bytes = op.hbm_utilization * p.peak_hbm_gibps * bytes_per_gib * seconds;
  add_stat(*m.mutable_stats(), stat_flops).set_int64_value(std::llround(flops));
  add_stat(*m.mutable_stats(), stat_bytes_accessed).set_int64_value(std::llround(bytes));
}

pb::XLine& add_line(pb::XPlane& plane, std::int64_t id, const char* name) {
  pb::XLine& l = *plane.add_lines();
  l.set_id(id);
  l.set_name(name);
  l.set_timestamp_ns(0);
  return l;
}

void add_event(pb::XLine& line, std::int64_t metadata_id, std::int64_t start_ps,
               std::int64_t duration_ps) {
  pb::XEvent& e = *line.add_events();
  e.set_metadata_id(metadata_id);
  e.set_offset_ps(start_ps);
  e.set_duration_ps(duration_ps);
}

// Per step: the step, its program, its ops back to back, then idle.
void lay_out_steps(pb::XPlane& plane, const synthetic_profile& p) {
  auto& steps = add_line(plane, 1, "Steps");
  auto& modules = add_line(plane, 2, "XLA Modules");
  auto& ops = add_line(plane, 3, "XLA Ops");
  const double step_ps = p.step_time_ms * 1e9;
  for (int s = 0; s < std::max(1, p.steps); ++s) {
    const auto start = std::llround(s * step_ps);
    declare_event(plane, first_step_id + s, std::to_string(s));
    add_event(steps, first_step_id + s, start, std::llround(step_ps));
    auto at = start;
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
      const auto duration = std::llround(p.ops[i].share * step_ps);
      add_event(ops, first_op_id + static_cast<std::int64_t>(i), at, duration);
      at += duration;
    }
    add_event(modules, module_id, start, at - start);
  }
}

} // namespace

std::string render_xspace(const synthetic_profile& p, std::string_view hostname) {
  pb::XSpace space;
  space.add_hostnames(std::string(hostname));
  pb::XPlane& plane = *space.add_planes();
  plane.set_id(1);
  plane.set_name("/device:TPU:0");
  declare_stats(plane);
  plane_stats(plane, p);
  declare_event(plane, module_id, "jit_train_step");
  const double step_ps = p.step_time_ms * 1e9;
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    declare_op(plane, first_op_id + static_cast<std::int64_t>(i), p.ops[i],
               p.ops[i].share * step_ps, p);
  lay_out_steps(plane, p);
  return space.SerializeAsString();
}

std::filesystem::path write_maxtext_xplane(const synthetic_profile& p,
                                           const std::filesystem::path& base_output_directory,
                                           const std::string& run_name, const std::string& capture,
                                           const std::string& hostname) {
  const auto dir =
      base_output_directory / run_name / "tensorboard" / "plugins" / "profile" / capture;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw input_error(dir.string() + ": cannot create (" + ec.message() + ")");
  const auto path = dir / (hostname + ".xplane.pb");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << render_xspace(p, hostname);
  if (!out.flush())
    throw input_error(path.string() + ": cannot write");
  return path;
}

std::string capture_name_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y_%m_%d_%H_%M_%S", &utc);
  return buf;
}

} // namespace paratune
