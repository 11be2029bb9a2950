// paratune-relay: runs a trial's command on a cluster node and relays its
// output lines, numbered, to paratune's bus (relay_run.hpp, relay_options.hpp).

#include <cstdlib>
#include <iostream>
#include <optional>

#include "core/input_error.hpp"
#include "paratune_version.hpp"
#include "tools/paratune-relay/relay_options.hpp"
#include "tools/paratune-relay/relay_run.hpp"

namespace {

/// The trial's key (PARATUNE_RELAY_KEY), taken out of this process's
/// environment before anything runs: the trial's command inherits the rest
/// and never sees it. nullopt when it is not set; `bad` when it is not 64
/// hex digits.
std::optional<paratune::relay_key> take_trial_key(bool& bad) {
  const char* text = std::getenv(paratune::relay_key_env);
  if (!text)
    return std::nullopt;
  auto key = paratune::relay_key_from_hex(text);
  ::unsetenv(paratune::relay_key_env);
  bad = !key;
  return key;
}

} // namespace

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
  if (options.version) {
    std::cout << "paratune-relay " << paratune::version << '\n';
    return 0;
  }
  bool bad_key = false;
  const auto key = take_trial_key(bad_key);
  if (bad_key) {
    std::cerr << "paratune-relay: " << relay_key_env
              << ": expected 64 hex digits (the trial's key, which paratune puts in the job's "
                 "environment)\n";
    return 2;
  }
  if (!key)
    std::cerr << "paratune-relay: no " << relay_key_env
              << " in the environment: lines go out unsigned, and paratune's relay ingress "
                 "refuses them (paratune then reads them from --log when the trial ends)\n";
  try {
    return relay::run_relay(options, key);
  } catch (const std::exception& e) {
    std::cerr << "paratune-relay: " << e.what() << '\n';
    return 1;
  }
}
