#pragma once

#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "messages/control_wire.hpp"

namespace paratune {

/// A control request that decoded and passed every check: its operation as
/// an enum and its fields within bounds.
struct checked_request {
  control::control_op op = control::control_op::health;
  control::request fields;
};

/// Decodes and checks one request's bytes (untrusted: anyone on the control
/// endpoint may send anything). Refuses, naming what is wrong: bytes that
/// are not a msgpack request, another protocol version, an unknown
/// operation, a session id that is not a plain name where one is needed, a
/// job over max_job_text_bytes, a trial budget out of range.
caf::expected<checked_request> check_request(std::string_view bytes);

} // namespace paratune
