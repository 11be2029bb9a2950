#include "adapters/http/curl_easy.hpp"

#include <mutex>

namespace paratune {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

curl_handle make_curl_handle() {
  init_curl_once();
  return curl_handle(curl_easy_init());
}

std::size_t write_body(char* ptr, std::size_t size, std::size_t n, void* user) {
  auto* sink = static_cast<body_sink*>(user);
  const std::size_t bytes = size * n;
  if (sink->data.size() + bytes > sink->limit) {
    sink->overflowed = true;
    return 0; // makes curl stop with CURLE_WRITE_ERROR
  }
  sink->data.append(ptr, bytes);
  return bytes;
}

http_get_answer http_get(CURL* c, const std::string& url, const http_get_options& o) {
  body_sink sink;
  sink.limit = o.max_body_bytes;
  char error_text[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L); // timeouts without SIGALRM (threads)
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, long(o.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, long(o.total_timeout.count()));
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, ""); // whatever libcurl can decode
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, o.max_redirects > 0 ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, o.max_redirects);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, o.verify_tls ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, o.verify_tls ? 2L : 0L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, o.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);
  http_get_answer a;
  a.code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a.status);
  if (a.code != CURLE_OK)
    a.error = error_text[0] ? error_text : curl_easy_strerror(a.code);
  a.body = std::move(sink.data);
  a.overflowed = sink.overflowed;
  return a;
}

} // namespace paratune
