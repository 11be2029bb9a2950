#include "core/storage_fault.hpp"

#include <algorithm>

namespace paratune {

write_action on_write_fault(storage_fault fault, write_origin origin) {
  switch (fault) {
    case storage_fault::no_space:
    case storage_fault::io_error:
      return origin == write_origin::running_session ? write_action::wait_and_retry
                                                     : write_action::refuse;
    case storage_fault::none:
    case storage_fault::damaged:
    case storage_fault::other: return write_action::refuse;
  }
  return write_action::refuse;
}

std::chrono::milliseconds write_retry_delay(int attempt) {
  constexpr long first_ms = 250;
  constexpr long longest_ms = 5000;
  long delay = first_ms;
  for (int i = 1; i < attempt && delay < longest_ms; ++i)
    delay *= 2;
  return std::chrono::milliseconds{std::min(delay, longest_ms)};
}

const char* to_string(storage_fault fault) {
  switch (fault) {
    case storage_fault::none: return "none";
    case storage_fault::no_space: return "no space left on the pool's disk";
    case storage_fault::io_error: return "the pool's device refused a write";
    case storage_fault::damaged: return "the pool is damaged";
    case storage_fault::other: return "the pool refused the request";
  }
  return "none";
}

} // namespace paratune
