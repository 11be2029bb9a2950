#include "adapters/relay/relay_auth.hpp"

#include <cerrno>
#include <cstdint>
#include <initializer_list>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/private_path.hpp"

namespace paratune {

namespace {

/// Makes sure libsodium chose its implementations (sodium_init is safe to
/// call again, and from several threads).
void ensure_sodium() {
  if (sodium_init() < 0)
    throw std::runtime_error("libsodium could not be initialised");
}

void add_framed(crypto_auth_hmacsha256_state& st, std::string_view part) {
  unsigned char length[8];
  uint64_t n = part.size();
  for (int i = 7; i >= 0; --i, n >>= 8)
    length[i] = static_cast<unsigned char>(n & 0xff);
  crypto_auth_hmacsha256_update(&st, length, sizeof length);
  crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(part.data()),
                                part.size());
}

relay_key mac_of(const relay_key& key, std::initializer_list<std::string_view> parts) {
  crypto_auth_hmacsha256_state st;
  crypto_auth_hmacsha256_init(&st, key.data(), key.size());
  for (auto part : parts)
    add_framed(st, part);
  relay_key out{};
  crypto_auth_hmacsha256_final(&st, out.data());
  return out;
}

std::string key_file_error(const std::string& what, const std::string& path) {
  return "relay key " + path + ": " + what + ": " + std::strerror(errno);
}

/// Writes a new master secret to `path`; false when the file exists already.
bool create_master(const std::string& path, relay_key& key) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST)
      return false;
    throw std::runtime_error(key_file_error("cannot create it", path));
  }
  key = random_relay_key();
  const bool written = ::write(fd, key.data(), key.size()) == ssize_t(key.size())
                       && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!written) {
    ::unlink(path.c_str()); // a short key would be refused at every later start
    errno = saved;
    throw std::runtime_error(key_file_error("cannot write it", path));
  }
  return true;
}

relay_key read_master(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    throw std::runtime_error(key_file_error("cannot open it", path));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw std::runtime_error(key_file_error("cannot stat it", path));
  }
  std::string problem;
  if (!S_ISREG(st.st_mode))
    problem = "is not a regular file";
  else if (const auto found = judge_private_path(private_path_kind::secret_file,
                                                  unsigned(st.st_uid), unsigned(::geteuid()),
                                                  unsigned(st.st_mode & 07777));
           found.verdict != private_path_verdict::ok)
    problem = found.problem + "; chmod 600 it, or remove it and every running relay's lines are "
                              "refused";
  else if (st.st_size != off_t(sizeof(relay_key)))
    problem = "holds " + std::to_string(st.st_size) + " bytes, not "
              + std::to_string(sizeof(relay_key));
  relay_key key{};
  if (problem.empty() && ::read(fd, key.data(), key.size()) != ssize_t(key.size()))
    problem = std::string("cannot be read: ") + std::strerror(errno);
  ::close(fd);
  if (!problem.empty())
    throw std::runtime_error("relay key " + path + " " + problem);
  return key;
}

} // namespace

relay_key random_relay_key() {
  ensure_sodium();
  relay_key key{};
  randombytes_buf(key.data(), key.size());
  return key;
}

relay_key relay_trial_key(const relay_key& master, std::string_view session, int trial) {
  ensure_sodium();
  const auto number = std::to_string(trial);
  return mac_of(master, {"paratune relay trial key v1", session, number});
}

std::string relay_frame_mac(const relay_key& key, std::string_view topic,
                            std::string_view payload, std::string_view sequence) {
  ensure_sodium();
  const auto mac = mac_of(key, {topic, payload, sequence});
  return std::string(reinterpret_cast<const char*>(mac.data()), mac.size());
}

bool relay_frame_authentic(const relay_key& key, std::string_view topic,
                           std::string_view payload, std::string_view sequence,
                           std::string_view mac) {
  if (mac.size() != crypto_auth_hmacsha256_BYTES)
    return false;
  ensure_sodium();
  const auto expected = mac_of(key, {topic, payload, sequence});
  return crypto_verify_32(expected.data(), reinterpret_cast<const unsigned char*>(mac.data()))
         == 0;
}

std::string to_hex(const relay_key& key) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(key.size() * 2);
  for (unsigned char b : key) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

std::optional<relay_key> relay_key_from_hex(std::string_view text) {
  if (text.size() != 64)
    return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  relay_key key{};
  for (size_t i = 0; i < key.size(); ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return std::nullopt;
    key[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return key;
}

relay_key load_or_create_relay_master(const std::string& path) {
  relay_key key{};
  if (create_master(path, key))
    return key;
  return read_master(path);
}

} // namespace paratune
