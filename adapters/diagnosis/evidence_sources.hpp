#pragma once

#include <chrono>
#include <string>

#include "core/diagnosis/diagnosis_evidence.hpp"

namespace paratune {

/// The profiles a diagnosis reads. Empty strings are not read.
struct evidence_request {
  /// Xprof tool outputs: a directory, or a server "http://host:port" with
  /// an optional "?run=NAME&host=HOST" (the first run when none is named).
  std::string xprof;
  std::string kineto;        ///< a Kineto trace, plain or gzipped
  std::string megatron_log;  ///< a Megatron-LM log
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds total_timeout{60000};
};

/// Reads every requested source and merges them (Xprof first, then Kineto,
/// then the log). A source that cannot be read becomes a warning and marks
/// the evidence partial as long as another one succeeded; when every
/// requested source fails, or none was requested, throws input_error
/// naming each failure.
diagnosis_evidence gather_evidence(const evidence_request& r);

} // namespace paratune
