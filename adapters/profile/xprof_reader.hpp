#pragma once

#include "adapters/profile/xprof_profile.hpp"
#include "adapters/profile/xprof_tools.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace paratune {

/// A tool output file found in a directory: `<host>.<tool>.json[.gz]` or
/// `<tool>.json[.gz]` (host then empty).
struct xprof_tool_file {
  std::string host;
  std::string tool;
  std::filesystem::path path;
};

/// Options for reading a directory.
struct xprof_dir_options {
  xprof_read_options read;
  /// Which `<host>` prefix to read when several are present; empty picks the
  /// one with the most known tools (ties: alphabetical first).
  std::string host;
};

/// Known tool files in `dir` (not recursive), sorted by host then tool.
/// Throws input_error when `dir` is not a readable directory.
std::vector<xprof_tool_file> find_xprof_tool_files(const std::filesystem::path& dir);

/// Reads the given tool files into one profile. A file that cannot be read
/// or parsed marks the profile partial (with a warning naming it) as long as
/// another file succeeded; when none does, throws input_error.
xprof_profile read_xprof_files(const std::vector<xprof_tool_file>& files,
                               const xprof_read_options& options = {});

/// The folder holding a trial's newest raw profile: `dir` itself when it
/// holds `*.xplane.pb`, else the newest `<time>/` folder with one under
/// MaxText's layout, `dir` being a run's folder
/// (`<base_output_directory>/<run_name>`, whose profiler writes
/// `tensorboard/plugins/profile/<time>/<host>.xplane.pb`), its `tensorboard/`
/// or its `plugins/profile/`. nullopt when there is none.
std::optional<std::filesystem::path> find_newest_xplane_capture(const std::filesystem::path& dir);

/// Reads the Xprof tool outputs of one host in `dir`. When the directory
/// holds no tool output, derives the profile from its raw `.xplane.pb`
/// (xspace_profile.hpp), or from the newest capture under it in MaxText's
/// layout (find_newest_xplane_capture). Throws input_error when there is
/// nothing usable.
xprof_profile read_xprof_dir(const std::filesystem::path& dir,
                             const xprof_dir_options& options = {});

} // namespace paratune
