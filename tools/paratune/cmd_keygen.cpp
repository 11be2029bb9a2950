// paratune keygen: a CURVE key pair for a TCP control endpoint. The
// daemon's: DIR/NAME.key (both keys, mode 0600) stays with the daemon
// (curve_key:), DIR/NAME.pub goes to its clients (--server-key). A
// client's (--client): NAME.key stays with the client (--client-key), and
// NAME.pub goes into the daemon's authorized_keys folder.

#include <iostream>

#include <CLI/CLI.hpp>

#include "daemon/curve_keys.hpp"
#include "tools/paratune/command.hpp"

namespace paratune::cli {

namespace {

struct keygen_options {
  std::string dir = ".";
  std::string name;
  bool client = false;
};

int run_keygen(const keygen_options& o) {
  const auto name = !o.name.empty() ? o.name : o.client ? "paratune-client" : "paratune-daemon";
  const auto keys = new_curve_keypair();
  write_curve_key_files(o.dir, name, keys);
  const auto base = o.dir + "/" + name;
  if (o.client)
    std::cout << "wrote " << base << ".key (secret: this client's --client-key) and " << base
              << ".pub (copy it into the daemon's authorized_keys folder)\n";
  else
    std::cout << "wrote " << base << ".key (secret: the daemon's curve_key) and " << base
              << ".pub (for clients: --server-key)\n";
  std::cout << "public key: " << keys.public_key << "\n";
  return 0;
}

command_action setup_keygen(CLI::App& app) {
  auto o = std::make_shared<keygen_options>();
  app.add_option("--out", o->dir, "the directory to write the two files in")
    ->check(CLI::ExistingDirectory);
  app.add_option("--name", o->name,
                 "the files' name (default paratune-daemon, or paratune-client with --client)");
  app.add_flag("--client", o->client, "a client's key pair, for the daemon's authorized_keys");
  return [o] { return run_keygen(*o); };
}

registrar keygen_command{{"keygen", "make a CURVE key pair for the daemon (or, with --client, a client)", setup_keygen}};

} // namespace

} // namespace paratune::cli
