#pragma once

#include <iostream>

#include <nlohmann/json.hpp>

namespace paratune::cli {

/// Prints `j` indented, one document per command. Strings quoted from input
/// (log lines, Xprof op names, file names) may hold bytes that are not
/// UTF-8; they come out as U+FFFD instead of aborting the output.
inline void print_json(const nlohmann::json& j, std::ostream& out = std::cout) {
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

} // namespace paratune::cli
