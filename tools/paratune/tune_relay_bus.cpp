#include "tools/paratune/tune_relay_bus.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace paratune::cli {

namespace {

/// A new directory only this user can enter: mkdtemp makes it 0700.
std::string private_directory() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/paratune-tune-XXXXXX";
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  if (!::mkdtemp(path.data()))
    throw std::runtime_error("cannot make a private directory for the bus (" + pattern
                             + "): " + std::strerror(errno));
  return path.data();
}

} // namespace

tune_relay_bus::tune_relay_bus() : dir_(private_directory()), master_(random_relay_key()) {}

tune_relay_bus::~tune_relay_bus() {
  ingress_.reset(); // its sockets close before their files go
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

bus_endpoints tune_relay_bus::agents() const {
  return {"ipc://" + dir_ + "/bus-publish.sock", "ipc://" + dir_ + "/bus-subscribe.sock"};
}

void tune_relay_bus::open_ingress(const std::string& endpoint, const std::string& bus_publish) {
  ingress_ = std::make_unique<relay_ingress>(ctx_, endpoint, bus_publish, master_);
}

} // namespace paratune::cli
