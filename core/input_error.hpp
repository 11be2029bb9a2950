#pragma once

#include <stdexcept>
#include <string>

namespace paratune {

/// Thrown by core/ parsing code for input a user or a file got wrong. The
/// message names the field or value. Callers at the edge (CLI, loaders, actors)
/// turn it into exit status 2 or a dropped message; core/ never prints.
struct input_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace paratune
