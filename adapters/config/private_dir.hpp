#pragma once

#include <string>

namespace paratune {

/// Makes `dir` (parents included) mode 0700 when it is missing; checks one
/// that exists with judge_private_path (core/private_path.hpp): one others
/// may write to, or another user's, throws input_error "LABEL: DIR PROBLEM";
/// one others may only read is set to 0700. Returns the warning to give
/// for that ("LABEL: DIR had mode 0755: ..."), empty when there is none.
/// `label` names the setting that gave the directory (state, --db).
std::string prepare_private_dir(const std::string& dir, const std::string& label);

} // namespace paratune
