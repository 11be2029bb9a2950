// paratune-relay: runs a trial's command on a cluster node and relays its
// output lines, numbered, to paratune's bus (relay_run.hpp, relay_options.hpp).

#include <iostream>

#include "core/input_error.hpp"
#include "tools/paratune-relay/relay_options.hpp"
#include "tools/paratune-relay/relay_run.hpp"

int main(int argc, char** argv) {
  using namespace paratune;
  relay::relay_options options;
  try {
    options = relay::parse_relay_options({argv + 1, argv + argc});
  } catch (const input_error& e) {
    std::cerr << "paratune-relay: " << e.what() << '\n';
    return 2;
  }
  if (options.help) {
    std::cout << relay::usage();
    return 0;
  }
  try {
    return relay::run_relay(options);
  } catch (const std::exception& e) {
    std::cerr << "paratune-relay: " << e.what() << '\n';
    return 1;
  }
}
