#pragma once

#include <string>
#include <string_view>

namespace paratune {

/// The placeholder of a pool's dcgm-exporter URL for each node a Slurm job
/// got: "http://{host}:9400/metrics" is scraped on every one of them.
inline constexpr std::string_view dcgm_host_placeholder = "{host}";

/// Whether `url` is a template over the job's nodes.
bool names_job_hosts(std::string_view url);

/// `url` with every {host} replaced by `host` (a name expand_slurm_hostlist
/// checked: letters, digits, '.', '-', '_').
std::string dcgm_url_for_host(std::string_view url, std::string_view host);

} // namespace paratune
