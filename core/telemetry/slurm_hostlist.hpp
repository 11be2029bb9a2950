#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace paratune {

/// The most hosts one node list may expand to: more than any job paratune
/// launches, few enough that a hostile list cannot make it allocate much.
inline constexpr size_t max_hostlist_hosts = 4096;

/// Why a node list was not expanded.
struct hostlist_error {
  std::string message;
};

/// Expands Slurm's compressed node list ("gpu[01-03,07],login1",
/// "rack[1-2]-n[1-2]") into host names in Slurm's order, keeping each
/// range's zero padding ("gpu[08-10]": gpu08, gpu09, gpu10). The list comes
/// from the scheduler and is not trusted: a name may hold only letters,
/// digits, '.', '-' and '_', and the expansion stops at max_hostlist_hosts.
std::variant<std::vector<std::string>, hostlist_error> expand_slurm_hostlist(std::string_view list);

} // namespace paratune
