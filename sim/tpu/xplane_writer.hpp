#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "sim/tpu/profile_synthesis.hpp"

namespace paratune {

/// A simulated run's profile as the serialized XSpace a TPU host writes:
/// one "/device:TPU:0" plane with the device's peaks as plane stats
/// (device_type_string, peak_teraflops_per_second,
/// peak_hbm_bw_gigabytes_per_second) and three lines. Each of `p.steps`
/// steps is one "Steps" event of step_time_ms; its "XLA Modules" event
/// (jit_train_step) and its "XLA Ops" events (one per op, back to back, each
/// lasting its share of the step) start with it, and the rest of the step is
/// idle. Each op's metadata carries hlo_category, and flops and
/// bytes_accessed per occurrence at its FLOP and HBM utilisation of the
/// peaks, so that xspace_profile.hpp reads the same shares and
/// utilisations back.
std::string render_xspace(const synthetic_profile& p, std::string_view hostname);

/// Writes render_xspace() where MaxText's profiler (`profiler=xplane`) puts
/// it: `<base_output_directory>/<run_name>/tensorboard/plugins/profile/
/// <capture>/<hostname>.xplane.pb`, `capture` being the UTC time as
/// "2026_11_27_15_22_49". Returns the path; throws input_error when it
/// cannot write.
std::filesystem::path write_maxtext_xplane(const synthetic_profile& p,
                                           const std::filesystem::path& base_output_directory,
                                           const std::string& run_name, const std::string& capture,
                                           const std::string& hostname);

/// The capture folder name MaxText's profiler would give a profile taken now.
std::string capture_name_now();

} // namespace paratune
