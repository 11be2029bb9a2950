#include "adapters/telemetry/dcgm_scrape.hpp"

#include <curl/curl.h>

#include "adapters/http/curl_easy.hpp"

namespace paratune {

const char* to_string(scrape_failure f) {
  switch (f) {
    case scrape_failure::unreachable: return "unreachable";
    case scrape_failure::timeout: return "timeout";
    case scrape_failure::http_status: return "http_status";
    case scrape_failure::too_large: return "too_large";
    case scrape_failure::not_prometheus: return "not_prometheus";
    case scrape_failure::transport: return "transport";
  }
  return "transport";
}

namespace {

scrape_failure failure_of(CURLcode rc, bool overflowed) {
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return scrape_failure::unreachable;
    case CURLE_OPERATION_TIMEDOUT: return scrape_failure::timeout;
    case CURLE_WRITE_ERROR:
      return overflowed ? scrape_failure::too_large : scrape_failure::transport;
    default: return scrape_failure::transport;
  }
}

/// The body of a 200 answer, or why there is none.
std::variant<std::string, scrape_error> fetch(const std::string& url,
                                              const dcgm_scrape_options& o) {
  auto curl = make_curl_handle();
  if (!curl)
    return scrape_error{scrape_failure::transport, 0, "GET " + url + ": cannot create a libcurl handle"};
  http_get_options get;
  get.connect_timeout = o.connect_timeout;
  get.total_timeout = o.total_timeout;
  get.max_body_bytes = o.max_body_bytes;
  get.user_agent = "paratune-dcgm-scrape";
  auto a = http_get(curl.get(), url, get);
  if (a.code != CURLE_OK) {
    const auto kind = failure_of(a.code, a.overflowed);
    std::string why = a.error;
    if (kind == scrape_failure::too_large)
      why = "answer larger than " + std::to_string(o.max_body_bytes) + " bytes";
    return scrape_error{kind, a.status, "GET " + url + " failed (" + to_string(kind) + "): " + why};
  }
  if (a.status != 200)
    return scrape_error{scrape_failure::http_status, a.status,
                        "GET " + url + " answered HTTP " + std::to_string(a.status)};
  return std::move(a.body);
}

} // namespace

dcgm_scrape_result scrape_dcgm(const std::string& url, const dcgm_scrape_options& options) {
  auto fetched = fetch(url, options);
  if (auto* e = std::get_if<scrape_error>(&fetched))
    return std::move(*e);
  const auto& body = std::get<std::string>(fetched);
  // Every line is parsed (an unwanted series must still be Prometheus text),
  // but only the fields paratune reads are kept.
  const auto parsed = parse_prometheus_text(body, {}, dcgm_fields());
  const std::size_t well_formed = parsed.samples.size() + parsed.skipped_samples;
  if (well_formed == 0 && parsed.malformed_lines > 0) {
    const auto& first = parsed.malformed.front();
    return scrape_error{scrape_failure::not_prometheus, 200,
                        "GET " + url + " answered 200 with no Prometheus sample line ("
                          + std::to_string(parsed.malformed_lines) + " malformed lines; line "
                          + std::to_string(first.line) + ": " + first.why + ")"};
  }
  dcgm_scrape out;
  out.gpus = dcgm_gpu_samples(parsed);
  out.series = parsed.samples.size();
  out.malformed_lines = parsed.malformed_lines;
  return out;
}

} // namespace paratune
