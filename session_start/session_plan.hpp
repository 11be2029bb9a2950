#pragma once

#include <string>

#include "adapters/config/job_loader.hpp"
#include "core/job_spec.hpp"
#include "messages/wire_types.hpp"
#include "session_start/session_record.hpp"

namespace paratune {

/// A job read once and made ready to start: what `tune` and the daemon's
/// `submit` both start a session from. A TPU mesh experiment is named as
/// such and carries nothing else (ASAP's loop reads its own file).
struct session_plan {
  job_kind kind = job_kind::gpu_tuning;
  job_spec job;                 ///< gpu_tuning only
  wire::session_opened record;  ///< the session's first record (gpu_tuning only)
  /// Where the job's relays publish (relay_ingress_for); empty when no pool relays.
  std::string relay_ingress;
};

/// The plan of the job file at `path` (its relative paths from its folder).
/// Throws input_error naming the file and what is wrong.
session_plan plan_session_file(const std::string& path, const session_source& src);

/// The plan of a submitted job's text, which must hold its model and
/// cluster inline. Throws input_error naming `label`.
session_plan plan_session_text(const std::string& text, const std::string& label,
                               const session_source& src);

} // namespace paratune
