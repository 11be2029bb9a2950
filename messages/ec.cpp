#include "messages/ec.hpp"

namespace paratune {

const char* to_string(ec code) {
  switch (code) {
    case ec::none: return "none";
    case ec::bad_input: return "bad_input";
    case ec::decode_failure: return "decode_failure";
    case ec::storage_failure: return "storage_failure";
    case ec::launch_failure: return "launch_failure";
    case ec::bus_failure: return "bus_failure";
  }
  return "unknown";
}

} // namespace paratune
