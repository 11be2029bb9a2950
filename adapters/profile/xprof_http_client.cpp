#include "adapters/http/curl_easy.hpp"
#include "adapters/profile/xprof_http_client.hpp"

#include "core/input_error.hpp"

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>

namespace paratune {

namespace {

using failure = xprof_http_error::failure;

failure classify(CURLcode rc, bool overflowed) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return failure::unreachable;
    case CURLE_OPERATION_TIMEDOUT: return failure::timeout;
    case CURLE_WRITE_ERROR: return overflowed ? failure::too_large : failure::transport;
    default: return failure::transport;
  }
}

// A short printable excerpt of an answer, for error messages.
std::string excerpt(const std::string& body) {
  std::string out;
  for (char c : body.substr(0, 160))
    out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  return body.size() > 160 ? out + "..." : out;
}


std::string escape(CURL* curl, const std::string& s) {
  char* e = curl_easy_escape(curl, s.c_str(), static_cast<int>(s.size()));
  std::string out = e ? e : "";
  curl_free(e);
  return out;
}

} // namespace

xprof_http_client::xprof_http_client(std::string base_url, xprof_http_options options)
    : base_url_(std::move(base_url)), options_(std::move(options)) {
  while (!base_url_.empty() && base_url_.back() == '/')
    base_url_.pop_back();
  init_curl_once();
}

std::string xprof_http_client::get(
    const std::string& route,
    const std::vector<std::pair<std::string, std::string>>& query) const {
  auto curl = make_curl_handle();
  if (!curl)
    throw xprof_http_error(failure::transport, 0, "cannot create a libcurl handle");
  std::string url = base_url_ + options_.route_prefix + route;
  for (std::size_t i = 0; i < query.size(); ++i)
    url += (i == 0 ? "?" : "&") + query[i].first + "=" + escape(curl.get(), query[i].second);

  http_get_options o;
  o.connect_timeout = options_.connect_timeout;
  o.total_timeout = options_.total_timeout;
  o.max_body_bytes = options_.max_body_bytes;
  o.verify_tls = options_.verify_tls;
  o.max_redirects = 3;  // (xprof gzips large answers: http_get decodes them)
  o.user_agent = "paratune-xprof-client";
  auto a = http_get(curl.get(), url, o);
  if (a.code != CURLE_OK) {
    failure kind = classify(a.code, a.overflowed);
    std::string why = a.error;
    if (kind == failure::too_large)
      why = "answer larger than " + std::to_string(options_.max_body_bytes) + " bytes";
    throw xprof_http_error(kind, a.status, "GET " + url + " failed: " + why);
  }
  if (a.status != 200)
    throw xprof_http_error(failure::http_status, a.status,
                           "GET " + url + " answered HTTP " + std::to_string(a.status) + ": "
                               + excerpt(a.body));
  return std::move(a.body);
}

std::vector<std::string> xprof_http_client::get_string_list(
    const std::string& route, const std::vector<std::pair<std::string, std::string>>& query,
    bool hostnames) const {
  std::string body = get(route, query);
  nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  auto bad = [&](const std::string& why) {
    return xprof_http_error(failure::malformed, 200,
                            base_url_ + options_.route_prefix + route + ": " + why
                                + " (answer: " + excerpt(body) + ")");
  };
  if (j.is_discarded())
    throw bad("answer is not JSON");
  if (!j.is_array())
    throw bad("expected a JSON list");
  std::vector<std::string> out;
  for (const auto& item : j) {
    if (item.is_string())
      out.push_back(item.get<std::string>());
    else if (hostnames && item.is_object() && item.contains("hostname")
             && item["hostname"].is_string())
      out.push_back(item["hostname"].get<std::string>());
    else
      throw bad("unexpected list item " + excerpt(item.dump()));
  }
  return out;
}

std::vector<std::string> xprof_http_client::runs() const {
  return get_string_list("/runs", {}, false);
}

std::vector<std::string> xprof_http_client::tools(const std::string& run) const {
  auto list = get_string_list("/run_tools", {{"run", run}}, false);
  for (auto& t : list)
    if (!t.empty() && t.back() == '^')  // old servers mark tools with '^'
      t.pop_back();
  return list;
}

std::vector<std::string> xprof_http_client::hosts(const std::string& run,
                                                  const std::string& tool) const {
  return get_string_list("/hosts", {{"run", run}, {"tag", tool}}, true);
}

std::string xprof_http_client::tool_data(const std::string& run, const std::string& tool,
                                         const std::string& host) const {
  return get("/data", {{"run", run}, {"tag", tool}, {"host", host}});
}

xprof_profile xprof_http_client::fetch_profile(const std::string& run, const std::string& host,
                                               const xprof_read_options& options) const {
  std::vector<std::string> offered = tools(run);
  std::vector<std::string> wanted;
  for (auto tool : xprof_known_tools)  // in application order
    if (std::find(offered.begin(), offered.end(), tool) != offered.end())
      wanted.emplace_back(tool);
  if (wanted.empty())
    throw input_error(base_url_ + ": run '" + run
                      + "' offers none of overview_page, op_profile, roofline_model, hlo_stats, "
                        "input_pipeline_analyzer, framework_op_stats");

  xprof_accumulator acc;
  acc.options = options;
  std::vector<std::string> failures;
  std::optional<xprof_http_error> first_http_error;
  for (const auto& tool : wanted) {
    std::string where = base_url_ + " run=" + run + " tool=" + tool;
    try {
      auto listed = hosts(run, tool);
      std::string chosen = host;
      if (std::find(listed.begin(), listed.end(), host) == listed.end())
        chosen = listed.empty() ? host : listed.front();
      apply_xprof_tool(tool, tool_data(run, tool, chosen), acc, where + " host=" + chosen);
    } catch (const xprof_http_error& e) {
      if (!first_http_error)
        first_http_error = e;
      failures.emplace_back(e.what());
    } catch (const input_error& e) {
      if (!first_http_error)
        first_http_error = xprof_http_error(failure::malformed, 200, e.what());
      failures.emplace_back(e.what());
    }
  }
  if (acc.profile.tools.empty())
    throw *first_http_error;
  xprof_profile p = finish_xprof_profile(std::move(acc));
  if (!failures.empty()) {
    p.partial = true;
    p.warnings.insert(p.warnings.end(), failures.begin(), failures.end());
  }
  return p;
}

} // namespace paratune
