#pragma once

#include <cstdint>

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
};

const char* to_string(ec code);

} // namespace paratune

CAF_ERROR_CODE_ENUM(paratune::ec, "paratune")
