// Fuzzes the daemon's control endpoint (messages/control_request.hpp): the
// input is one request's bytes as a client, or anyone on the endpoint, may
// send them. check_request documents no exception (an error value for bad
// input): any exception, crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "messages/control_request.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto checked = paratune::check_request(bytes);
  if (checked) {
    // What the daemon reads of an accepted request.
    volatile size_t n = checked->fields.session.size() + checked->fields.job_yaml.size();
    (void)n;
  }
  return 0;
}
