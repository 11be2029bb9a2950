#pragma once

#include <string>

namespace paratune {

/// A fresh nonce for one page's inline <style> and <script> (128 random
/// bits, hex): the Content-Security-Policy lets only those run.
std::string new_nonce();

/// The Content-Security-Policy of a page served with `nonce`: nothing from
/// elsewhere (no CDN), fetches to this server only, and only the inline
/// style and script carrying the nonce.
std::string page_policy(const std::string& nonce);

/// The policy of everything that is not a page (JSON, SVG, added routes):
/// it runs nothing and loads nothing.
std::string data_policy();

/// A whole page: `title` (already escaped) in <title>, the dashboard's
/// inline style, then `body` (HTML the caller escaped).
std::string page_frame(const std::string& title, const std::string& body,
                       const std::string& nonce);

} // namespace paratune
