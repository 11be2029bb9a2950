#pragma once

// What the tests that submit to tools/slurm-local's Slurm share.

#include <cstdlib>
#include <string>

#include <filesystem>

#include <netdb.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <unistd.h>

#include "tests/fixtures/test_paths.hpp"

namespace paratune::test {

/// Why such a test skips.
inline const char* no_local_slurm =
    "no local Slurm: tools/slurm-local start; eval \"$(tools/slurm-local env)\"";

/// Points sbatch, scontrol and scancel (SLURM_CONF) at the local Slurm and
/// paratune at the checkout's configs/; false when no local Slurm runs
/// (PARATUNE_SLURM_CONF unset).
inline bool use_local_slurm() {
  const char* conf = std::getenv("PARATUNE_SLURM_CONF");
  if (!conf || !*conf)
    return false;
  setenv("SLURM_CONF", conf, 1);
  setenv("PARATUNE_CONFIGS", (source_dir() + "/configs").c_str(), 1);
  return true;
}

/// Whether a user other than the owner can run `program`: every directory
/// above it searchable by others and the file executable by them. A job
/// that slurmrestd runs as its own user needs that of the build's programs
/// (a checkout in a 0700 temporary folder does not give it).
inline bool others_can_run(const std::string& program) {
  namespace fs = std::filesystem;
  struct stat st{};
  for (fs::path p = fs::absolute(program); !p.empty(); p = p.parent_path()) {
    if (::stat(p.c_str(), &st) != 0 || !(st.st_mode & S_IXOTH))
      return false;
    if (p == p.root_path())
      break;
  }
  return true;
}

/// The one node of tools/slurm-local: this host's short name (`hostname -s`).
inline std::string local_slurm_node() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  std::string host = name;
  return host.substr(0, host.find('.'));
}

/// Whether `host` resolves to 127.0.0.1, where the tests' HTTP servers listen.
inline bool resolves_to_loopback(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0)
    return false;
  bool loopback = false;
  for (auto* a = found; a; a = a->ai_next)
    loopback = loopback
               || reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr.s_addr
                    == htonl(INADDR_LOOPBACK);
  freeaddrinfo(found);
  return loopback;
}

} // namespace paratune::test
