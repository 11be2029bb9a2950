#pragma once

#include <set>
#include <string>

namespace paratune {

/// A ZeroMQ CURVE key pair, each key 40 characters of Z85. The secret key
/// is empty in a public key file.
struct curve_keypair {
  std::string public_key;
  std::string secret_key;
};

/// A fresh key pair (zmq_curve_keypair); throws std::runtime_error when
/// this libzmq was built without CURVE.
curve_keypair new_curve_keypair();

/// Writes DIR/NAME.key (both keys, mode 0600) and DIR/NAME.pub (the public
/// key only), each whole or not at all; refuses to overwrite either.
/// Throws input_error naming the file.
void write_curve_key_files(const std::string& dir, const std::string& name,
                           const curve_keypair& keys);

/// Reads a file written by write_curve_key_files (either one). Throws
/// input_error naming the file and what is wrong: no such file, a line that
/// is not `public-key = "..."` or `secret-key = "..."`, a key that is not
/// 40 Z85 characters, a secret key file readable by others.
curve_keypair read_curve_key_file(const std::string& path);

/// The public keys (Z85) of the client key files (*.pub) in `dir`, the
/// control endpoint's allow-list. Throws input_error naming the folder or
/// file: no such folder, a folder others may write to (anyone could add a
/// key), a file that is not a key file.
std::set<std::string> read_authorized_keys(const std::string& dir);

} // namespace paratune
