// Fuzzes paratune-sim's command line (tools/paratune-sim/sim_options.hpp):
// the input is split into argv tokens at NUL bytes and whitespace, after a
// program name, as a shell would hand them over. The documented error is
// input_error; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "tools/paratune-sim/sim_options.hpp"

namespace {

bool separates(char c) {
  return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::vector<std::string> tokens_of(const uint8_t* data, size_t size) {
  std::vector<std::string> out{"paratune-sim"};
  std::string cur;
  for (size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (!separates(c)) {
      cur.push_back(c);
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty())
    out.push_back(cur);
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto tokens = tokens_of(data, size);
  std::vector<char*> argv;
  for (auto& t : tokens)
    argv.push_back(t.data());
  argv.push_back(nullptr);
  try {
    (void)paratune::sim::parse_sim_options(static_cast<int>(tokens.size()), argv.data());
  } catch (const paratune::input_error&) {
  }
  return 0;
}
