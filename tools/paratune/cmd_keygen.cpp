// paratune keygen: a CURVE key pair for the daemon's control endpoint.
// DIR/NAME.key (both keys, mode 0600) stays with the daemon (curve_key:);
// DIR/NAME.pub goes to its clients (--server-key, PARATUNE_SERVER_KEY).

#include <iostream>

#include <CLI/CLI.hpp>

#include "daemon/curve_keys.hpp"
#include "tools/paratune/command.hpp"

namespace paratune::cli {

namespace {

struct keygen_options {
  std::string dir = ".";
  std::string name = "paratune-daemon";
};

int run_keygen(const keygen_options& o) {
  const auto keys = new_curve_keypair();
  write_curve_key_files(o.dir, o.name, keys);
  std::cout << "wrote " << o.dir << "/" << o.name << ".key (secret: the daemon's curve_key) and "
            << o.dir << "/" << o.name << ".pub (for clients: --server-key)\n"
            << "public key: " << keys.public_key << "\n";
  return 0;
}

command_action setup_keygen(CLI::App& app) {
  auto o = std::make_shared<keygen_options>();
  app.add_option("--out", o->dir, "the directory to write the two files in")
    ->check(CLI::ExistingDirectory);
  app.add_option("--name", o->name, "the files' name (default paratune-daemon)");
  return [o] { return run_keygen(*o); };
}

registrar keygen_command{{"keygen", "make a CURVE key pair for the daemon's control endpoint", setup_keygen}};

} // namespace

} // namespace paratune::cli
