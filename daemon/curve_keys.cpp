#include "daemon/curve_keys.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#include "core/input_error.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

constexpr size_t z85_key_size = 40;
const std::string z85_alphabet =
  "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

bool is_z85_key(const std::string& k) {
  return k.size() == z85_key_size && k.find_first_not_of(z85_alphabet) == std::string::npos;
}

std::string key_file_text(const curve_keypair& k, bool with_secret) {
  std::string text = "# paratune CURVE " + std::string(with_secret ? "secret" : "public")
                     + " key (paratune keygen). ZeroMQ Z85.\n"
                       "public-key = \"" + k.public_key + "\"\n";
  if (with_secret)
    text += "secret-key = \"" + k.secret_key + "\"\n";
  return text;
}

/// Creates `path` with `mode`, writes `text`, fsyncs; never replaces a file.
void write_new_file(const std::string& path, const std::string& text, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0)
    throw input_error(path + ": cannot create it: " + std::strerror(errno));
  const bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) {
    std::filesystem::remove(path);
    throw input_error(path + ": cannot write it");
  }
}

} // namespace

curve_keypair new_curve_keypair() {
  char pub[41] = {}, sec[41] = {};
  if (zmq_curve_keypair(pub, sec) != 0)
    throw std::runtime_error(std::string("cannot make a CURVE key pair: ") + zmq_strerror(zmq_errno()));
  return {pub, sec};
}

void write_curve_key_files(const std::string& dir, const std::string& name,
                           const curve_keypair& keys) {
  if (!is_plain_name(name, 64))
    throw input_error("--name: '" + name + "' is not a plain name");
  const auto secret = dir + "/" + name + ".key";
  const auto pub = dir + "/" + name + ".pub";
  if (std::filesystem::exists(secret) || std::filesystem::exists(pub))
    throw input_error(dir + ": " + name + ".key or " + name + ".pub exists already; "
                      "remove it or choose another --name");
  write_new_file(secret, key_file_text(keys, true), 0600);
  try {
    write_new_file(pub, key_file_text(keys, false), 0644);
  } catch (...) {
    std::filesystem::remove(secret); // both or neither
    throw;
  }
}

curve_keypair read_curve_key_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw input_error(path + ": no such key file");
  curve_keypair k;
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    line = trim(line);
    if (line.empty() || line[0] == '#')
      continue;
    const auto eq = line.find('=');
    const auto key = eq == std::string::npos ? line : trim(line.substr(0, eq));
    auto value = eq == std::string::npos ? std::string() : trim(line.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    const auto where = path + ": line " + std::to_string(line_no);
    if (key != "public-key" && key != "secret-key")
      throw input_error(where + ": expected public-key = \"...\" or secret-key = \"...\"");
    if (!is_z85_key(value))
      throw input_error(where + ": " + key + " is not 40 Z85 characters");
    (key == "public-key" ? k.public_key : k.secret_key) = value;
  }
  if (k.public_key.empty())
    throw input_error(path + ": no public-key");
  struct stat st {};
  if (!k.secret_key.empty() && ::stat(path.c_str(), &st) == 0 && (st.st_mode & 077) != 0)
    throw input_error(path + ": a secret key file must not be readable by others (chmod 600)");
  return k;
}

std::set<std::string> read_authorized_keys(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw input_error("authorized_keys: " + dir + ": no such folder");
  if ((st.st_mode & 022) != 0)
    throw input_error("authorized_keys: " + dir + ": others may write to this folder, and so "
                      "add a key of their own (chmod go-w)");
  std::set<std::string> keys;
  std::error_code listed;
  for (const auto& entry : std::filesystem::directory_iterator(dir, listed)) {
    if (entry.path().extension() != ".pub")
      continue;
    keys.insert(read_curve_key_file(entry.path().string()).public_key);
  }
  if (listed)
    throw input_error("authorized_keys: " + dir + ": cannot list it: " + listed.message());
  return keys;
}

} // namespace paratune
