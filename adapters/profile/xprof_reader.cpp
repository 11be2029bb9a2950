#include "adapters/profile/xprof_reader.hpp"

#include "adapters/profile/gzip_file.hpp"
#include "adapters/profile/xspace_profile.hpp"
#include "core/input_error.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <system_error>

namespace paratune {

namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<xprof_tool_file> classify(const fs::path& path) {
  std::string name = path.filename().string();
  std::string_view stem = name;
  if (ends_with(stem, ".gz"))
    stem.remove_suffix(3);
  if (!ends_with(stem, ".json"))
    return std::nullopt;
  stem.remove_suffix(5);
  auto dot = stem.rfind('.');
  xprof_tool_file f;
  f.path = path;
  if (dot == std::string_view::npos) {
    f.tool = stem;
  } else {
    f.host = stem.substr(0, dot);
    f.tool = stem.substr(dot + 1);
  }
  if (!is_known_xprof_tool(f.tool))
    return std::nullopt;
  return f;
}

std::string pick_host(const std::vector<xprof_tool_file>& files) {
  std::map<std::string, int> tools_per_host;
  for (const auto& f : files)
    ++tools_per_host[f.host];
  std::string best;
  int best_count = -1;
  for (const auto& [host, count] : tools_per_host)  // map order: alphabetical ties
    if (count > best_count) {
      best = host;
      best_count = count;
    }
  return best;
}

std::vector<fs::path> xplane_files(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (ends_with(n, ".xplane.pb") || ends_with(n, ".xplane.pb.gz"))
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// MaxText's (and jax.profiler's) capture folders are named by their UTC
// time, "2026_11_27_15_22_49", so the newest sorts last; a name that is no
// time sorts by name too, which is still one answer for one tree.
std::optional<fs::path> newest_capture(const fs::path& profile_dir) {
  std::vector<fs::path> captures;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(profile_dir, ec))
    if (e.is_directory(ec) && !xplane_files(e.path()).empty())
      captures.push_back(e.path());
  if (captures.empty())
    return std::nullopt;
  return *std::max_element(captures.begin(), captures.end());
}

} // namespace

std::vector<xprof_tool_file> find_xprof_tool_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw input_error(dir.string() + ": not a directory");
  std::vector<xprof_tool_file> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec))
      continue;
    if (auto f = classify(e.path()))
      files.push_back(std::move(*f));
  }
  if (ec)
    throw input_error(dir.string() + ": cannot list (" + ec.message() + ")");
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return std::tie(a.host, a.tool) < std::tie(b.host, b.tool);
  });
  return files;
}

xprof_profile read_xprof_files(const std::vector<xprof_tool_file>& files,
                               const xprof_read_options& options) {
  if (files.empty())
    throw input_error("no Xprof tool files given");
  auto ordered = files;
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    return xprof_tool_rank(a.tool) < xprof_tool_rank(b.tool);
  });
  xprof_accumulator acc;
  acc.options = options;
  std::vector<std::string> failures;
  for (const auto& f : ordered) {
    try {
      file_bytes bytes = read_maybe_gzip(f.path);
      if (bytes.truncated)
        throw input_error(f.path.string() + ": gzip stream is truncated");
      apply_xprof_tool(f.tool, bytes.data, acc, f.path.string());
    } catch (const input_error& e) {
      failures.emplace_back(e.what());
    }
  }
  if (acc.profile.tools.empty())
    throw input_error("no readable Xprof tool output: " + failures.front());
  xprof_profile p = finish_xprof_profile(std::move(acc));
  if (!failures.empty()) {
    p.partial = true;
    p.warnings.insert(p.warnings.end(), failures.begin(), failures.end());
  }
  return p;
}

std::optional<fs::path> find_newest_xplane_capture(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return std::nullopt;
  if (!xplane_files(dir).empty())
    return dir;
  for (const fs::path& below : {fs::path("tensorboard") / "plugins" / "profile",
                                fs::path("plugins") / "profile", fs::path("profile"),
                                fs::path()})
    if (fs::is_directory(dir / below, ec))
      if (auto capture = newest_capture(dir / below))
        return capture;
  return std::nullopt;
}

xprof_profile read_xprof_dir(const fs::path& dir, const xprof_dir_options& options) {
  auto files = find_xprof_tool_files(dir);
  if (files.empty()) {
    auto xplanes = xplane_files(dir);
    if (!xplanes.empty())
      return read_xspace_profile(xplanes, options.read.top_n);
    if (auto capture = find_newest_xplane_capture(dir); capture && *capture != dir)
      return read_xspace_profile(xplane_files(*capture), options.read.top_n);
    throw input_error(dir.string()
                      + ": no Xprof tool outputs (<host>.<tool>.json[.gz]), no .xplane.pb, and "
                      + "no tensorboard/plugins/profile/<time>/ capture under it");
  }
  std::string host = options.host.empty() ? pick_host(files) : options.host;
  std::vector<xprof_tool_file> chosen;
  for (auto& f : files)
    if (f.host == host)
      chosen.push_back(f);
  if (chosen.empty())
    throw input_error(dir.string() + ": no Xprof tool outputs for host '" + host + "'");
  return read_xprof_files(chosen, options.read);
}

} // namespace paratune
