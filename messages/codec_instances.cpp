// The one place msgpack's encoders and decoders of the wire types are
// instantiated (see PARATUNE_EXTERN_CODEC in codec.hpp).

#include "messages/codec.hpp"
#include "messages/control_wire.hpp"

namespace paratune::wire {

#define PARATUNE_INSTANTIATE_CODEC(T)                                                  \
  template std::string pack<T>(const T&);                                            \
  template T unpack<T>(std::string_view, const char*);
PARATUNE_WIRE_BODIES(PARATUNE_INSTANTIATE_CODEC)
PARATUNE_INSTANTIATE_CODEC(envelope)
PARATUNE_INSTANTIATE_CODEC(control::request)
PARATUNE_INSTANTIATE_CODEC(control::reply)

} // namespace paratune::wire
