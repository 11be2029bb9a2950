#include "daemon/endpoints_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace paratune {

std::string endpoints_file_of(const std::string& state_dir) {
  return state_dir + "/endpoints.json";
}

void write_endpoints_file(const std::string& path, const daemon_endpoints& e) {
  const auto text = nlohmann::json{{"control", e.control},
                                   {"bus_subscribe", e.bus_subscribe},
                                   {"relay_ingress", e.relay_ingress},
                                   {"http", e.http},
                                   {"pid", e.pid}}
                      .dump(2) + "\n";
  const auto temp = path + ".new";
  ::unlink(temp.c_str()); // a leftover of a daemon killed mid-write
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    throw std::runtime_error("cannot write " + temp + ": " + std::strerror(errno));
  const bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  const int saved = errno;
  ::close(fd);
  if (!written || ::rename(temp.c_str(), path.c_str()) != 0) {
    const auto why = std::strerror(written ? errno : saved);
    ::unlink(temp.c_str());
    throw std::runtime_error("cannot write " + path + ": " + why);
  }
}

std::string relay_ingress_of_last_run(const std::string& path, const std::string& configured) {
  if (configured.size() < 2 || configured.compare(configured.size() - 2, 2, ":*") != 0)
    return {};
  std::ifstream in(path);
  const auto kept = nlohmann::json::parse(in, nullptr, false);
  if (!kept.is_object() || !kept.contains("relay_ingress") || !kept["relay_ingress"].is_string())
    return {};
  const auto before = kept["relay_ingress"].get<std::string>();
  const auto port = before.substr(before.rfind(':') + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    return {};
  return configured.substr(0, configured.size() - 1) + port;
}

} // namespace paratune
