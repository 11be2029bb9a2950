#pragma once

#include <string>

#include "sim/tpu/profile_synthesis.hpp"

namespace paratune::tpusim {

/// A profile described in YAML: the KPIs and operations a paper (or a bug
/// report) lists, plus how to fill the rest of the device time. Used to
/// build the ASAP scenario fixtures (tests/fixtures/asap/*/paper.yaml):
///
///   device_type: TPU v5p
///   cores: 512
///   hosts: 128
///   steps: 1
///   step_time_ms: 35656.45
///   duty_cycle_percent: 99.73
///   comm_percent: 2.57          # collectives' share, listed ones included
///   ops:                        # as listed; share in percent of device time
///     - {name: ..., category: ..., share_percent: 0.62, bound_by: Unknown,
///        roofline_efficiency: 0.0, flops_utilization: 0, hbm_utilization: 0,
///        occurrences: 96, raw_time_ps: 0}
///   tail: {ops: 300, max_share_percent: 0.44, compute: 0.88, hbm: 0.09,
///          unknown: 0.03, comm_ops: 8}
///
/// Utilisations and efficiencies are fractions 0-1. Throws input_error.
synthetic_profile load_fixture_spec(const std::string& path);

} // namespace paratune::tpusim
