#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <curl/curl.h>

namespace paratune {

// The pieces every libcurl client here shares (the Xprof profile server,
// slurmrestd): one global init, an owned easy handle, and a body sink that
// stops a transfer past its size limit.

/// curl_global_init is not thread-safe: done once, before the first handle.
void init_curl_once();

struct curl_deleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
using curl_handle = std::unique_ptr<CURL, curl_deleter>;

/// A fresh easy handle (after init_curl_once()); null when libcurl fails.
curl_handle make_curl_handle();

/// Where an answer's body goes; a body past `limit` bytes stops the
/// transfer (CURLE_WRITE_ERROR) with `overflowed` set.
struct body_sink {
  std::string data;
  std::size_t limit = 0;
  bool overflowed = false;
};

/// CURLOPT_WRITEFUNCTION for a body_sink given as CURLOPT_WRITEDATA.
std::size_t write_body(char* ptr, std::size_t size, std::size_t n, void* sink);

struct http_get_options {
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds total_timeout{60000};
  std::size_t max_body_bytes = std::size_t{1} << 30;
  bool verify_tls = true;
  long max_redirects = 0;  ///< 0: a redirect is the answer
  std::string user_agent = "paratune";
};

/// What one GET brought back.
struct http_get_answer {
  CURLcode code = CURLE_OK;  ///< libcurl's verdict on the transfer
  std::string error;         ///< its words for a code other than CURLE_OK
  long status = 0;           ///< the HTTP status, when an answer came
  std::string body;
  bool overflowed = false;   ///< the body passed max_body_bytes and was cut off
};

/// One blocking GET of an http(s) URL on `curl` (other schemes refused),
/// with the options' timeouts and limit, a compressed answer decoded, and
/// no signals (a timeout works on any thread).
http_get_answer http_get(CURL* curl, const std::string& url, const http_get_options& options);

/// A POST of a JSON body, with extra header lines ("Authorization: ...").
struct http_post_request {
  std::string url;
  std::string body;
  std::vector<std::string> headers;
};

/// What one POST brought back: a GET's answer, plus the Retry-After header
/// when the server sent one (its raw value: seconds or an HTTP date).
struct http_post_answer : http_get_answer {
  std::string retry_after;
};

/// One blocking POST (Content-Type: application/json), as http_get does a
/// GET: the same schemes, timeouts, body limit and no signals.
http_post_answer http_post(CURL* curl, const http_post_request& request,
                           const http_get_options& options);

} // namespace paratune
