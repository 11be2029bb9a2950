#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace paratune {

// Where the running program lives, so that it finds what sits beside it in a
// build tree (build/bin/paratune-sim, <source>/configs, <source>/data) from
// any working directory. Linux: read from /proc/self/exe.

/// The folder of the running executable; an empty path where /proc/self/exe
/// cannot be read.
std::filesystem::path executable_dir();

/// The companion program `name` beside the running executable, or the one
/// that the environment variable `env_var` names when it is set and not
/// empty. Just `name` where the executable's folder is unknown.
std::string sibling_executable(const std::string& name, const char* env_var);

/// The first `dir / child` that `accept` takes, for `dir` from the
/// executable's folder up through its parents (the root excluded), or
/// nullopt: build/bin/paratune finds <source>/configs this way.
std::optional<std::filesystem::path> find_above_executable(
    const std::string& child, const std::function<bool(const std::filesystem::path&)>& accept);

/// The data directory (the measured tables, logs and profiles that
/// validate-model, the tests and the benchmarks read): `given` (--data) when
/// not empty, else $PARATUNE_DATA when set and not empty, else the first
/// `data/` holding perf/ above the running executable (build/bin/paratune ->
/// <checkout>/data). Throws input_error naming what was tried when the one
/// given or found holds no perf/.
std::string find_data_dir(const std::string& given = "");

} // namespace paratune
