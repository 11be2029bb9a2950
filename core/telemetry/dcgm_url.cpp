#include "core/telemetry/dcgm_url.hpp"

namespace paratune {

bool names_job_hosts(std::string_view url) {
  return url.find(dcgm_host_placeholder) != std::string_view::npos;
}

std::string dcgm_url_for_host(std::string_view url, std::string_view host) {
  std::string out;
  size_t from = 0;
  for (size_t at; (at = url.find(dcgm_host_placeholder, from)) != std::string_view::npos;
       from = at + dcgm_host_placeholder.size())
    out.append(url.substr(from, at - from)).append(host);
  out.append(url.substr(from));
  return out;
}

} // namespace paratune
