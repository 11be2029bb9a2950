#pragma once

#include "adapters/profile/xprof_profile.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace paratune {

/// Renders `p` as Xprof tool outputs in the shapes the xprof server returns:
/// "overview_page" (array of 7 DataTables), "op_profile" (byProgram tree,
/// rawTime in ps) and "roofline_model" ([table, diagnostics], percent
/// columns as fractions). A simulated cluster uses this to emit what a real
/// TPU profile would; read_xprof_files() reads it back. Values the profile
/// lacks are left out, as xprof leaves out what it did not measure.
std::map<std::string, std::string> render_xprof_tools(const xprof_profile& p);

/// Writes render_xprof_tools() as `<dir>/<host>.<tool>.json` (creating
/// `dir`) and returns the paths. Throws input_error when it cannot write.
std::vector<std::filesystem::path> write_xprof_dir(const xprof_profile& p,
                                                   const std::filesystem::path& dir,
                                                   const std::string& host);

} // namespace paratune
