// Fuzzes paratune-relay's command line (tools/paratune-relay/relay_options.hpp):
// the input is split into argv tokens at NUL bytes and whitespace, as a
// shell would hand them over. The documented error is input_error;
// anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "tools/paratune-relay/relay_options.hpp"

namespace {

bool separates(char c) {
  return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args;
  std::string cur;
  for (size_t i = 0; i <= size; ++i) {
    if (i < size && !separates(static_cast<char>(data[i]))) {
      cur.push_back(static_cast<char>(data[i]));
    } else if (!cur.empty()) {
      args.push_back(std::move(cur));
      cur.clear();
    }
  }
  try {
    const auto o = paratune::relay::parse_relay_options(args);
    if (!o.help)
      (void)paratune::relay::announced_host(o);
  } catch (const paratune::input_error&) {
  }
  return 0;
}
