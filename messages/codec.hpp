#pragma once

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "messages/wire_types.hpp"

namespace paratune::wire {

/// A payload that does not decode: truncated, not msgpack, a wrong type,
/// or a schema version this build does not read.
struct decode_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// msgpack bytes of any MSGPACK_DEFINE_MAP struct.
template <class T>
std::string pack(const T& value) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, value);
  return {buf.data(), buf.size()};
}

/// Limits for decoding `size` bytes. msgpack allocates for an array, map or
/// string the length its header claims before reading the elements, so five
/// bytes claiming 2^31 map entries asked for 32 GiB (found by
/// fuzz/bus_envelope.cpp). No container can hold more elements, and no
/// string more bytes, than the payload has bytes; and no body nests deeper
/// than a few levels.
inline msgpack::unpack_limit unpack_limit_for(std::size_t size) {
  constexpr std::size_t max_depth = 32;
  return msgpack::unpack_limit(size, size, size, size, size, max_depth);
}

/// Decodes msgpack bytes into T; throws decode_error naming `what`.
template <class T>
T unpack(std::string_view bytes, const char* what) {
  try {
    auto handle = msgpack::unpack(bytes.data(), bytes.size(), nullptr, nullptr,
                                  unpack_limit_for(bytes.size()));
    return handle.get().as<T>();
  } catch (const std::exception& e) {
    throw decode_error(std::string("cannot decode ") + what + ": " + e.what());
  }
}

// pack and unpack of the envelope and of every body are compiled once, in
// codec_instances.cpp: msgpack's adaptors for one of these structs cost a
// translation unit seconds of template instantiation, and some sixty files
// encode or decode them.
#define PARATUNE_EXTERN_CODEC(T)                                                       \
  extern template std::string pack<T>(const T&);                                     \
  extern template T unpack<T>(std::string_view, const char*);
PARATUNE_WIRE_BODIES(PARATUNE_EXTERN_CODEC)
PARATUNE_EXTERN_CODEC(envelope)

/// An envelope around a typed body.
template <class T>
envelope make_envelope(const std::string& session, int trial, const T& body) {
  envelope e;
  e.type = type_name<T>();
  e.session = session;
  e.trial = trial;
  e.ts_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::system_clock::now().time_since_epoch()).count();
  e.body = pack(body);
  return e;
}

/// Decodes an envelope and checks its schema version.
envelope decode_envelope(std::string_view bytes);

/// The typed body of an envelope; throws decode_error when the type differs.
template <class T>
T body_of(const envelope& e) {
  if (e.type != type_name<T>())
    throw decode_error("envelope holds '" + e.type + "', expected '"
                       + type_name<T>() + "'");
  return unpack<T>(e.body, type_name<T>());
}

} // namespace paratune::wire
