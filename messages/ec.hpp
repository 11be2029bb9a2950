#pragma once

#include <cstdint>
#include <string>

#include <caf/error.hpp>
#include <caf/make_message.hpp>

namespace paratune {

/// Error codes of paratune's actors, carried in caf::error.
enum class ec : uint8_t {
  none = 0,
  /// A file, flag or message a user or a peer got wrong.
  bad_input,
  /// A bus payload or pool record that does not decode.
  decode_failure,
  /// RocksDB refused a read or write.
  storage_failure,
  /// A child process could not be started.
  launch_failure,
  /// The bus could not bind or connect.
  bus_failure,
  /// An agent died of an exception, or an agent a session needs died.
  agent_failure,
  /// A session could not go on (its history does not read, a step failed).
  session_failure,
  /// RocksDB refused a write for want of space: retried until space returns.
  storage_no_space,
  /// The pool's device refused (EIO, a read-only remount): retried as well.
  storage_io_error,
  /// A checksum mismatch or other corruption in the pool: never retried.
  storage_damaged,
};

/// The code as words: "storage failure".
const char* to_string(ec code);

/// Any caf::error as words. paratune's own codes read "storage failure:
/// cannot open ..."; CAF's own errors keep CAF's rendering. caf::to_string
/// alone prints paratune's codes as numbers.
std::string describe(const caf::error& err);

} // namespace paratune

CAF_ERROR_CODE_ENUM(paratune::ec, "paratune")
