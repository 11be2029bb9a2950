#pragma once

#include <string>

#include "messages/wire_types.hpp"

namespace paratune {

/// Ends the process group a dead daemon's local trial left behind, when
/// its leader still runs the trial's program (read from /proc: a pid reused
/// since by another program is left alone). Returns what it did, in words,
/// for the trial's interruption note.
std::string end_orphan(const wire::trial_job& job);

} // namespace paratune
