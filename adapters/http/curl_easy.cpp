#include "adapters/http/curl_easy.hpp"

#include <cctype>
#include <mutex>
#include <string_view>

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

namespace {

struct slist_deleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

/// CURLOPT_HEADERFUNCTION: keeps the value of a Retry-After header.
std::size_t read_header(char* ptr, std::size_t size, std::size_t n, void* user) {
  const std::size_t bytes = size * n;
  std::string line(ptr, bytes);
  constexpr std::string_view name = "retry-after:";
  if (line.size() > name.size()) {
    std::string head = line.substr(0, name.size());
    for (auto& ch : head)
      ch = char(std::tolower(static_cast<unsigned char>(ch)));
    if (head == name) {
      auto value = line.substr(name.size());
      const auto first = value.find_first_not_of(" \t");
      const auto last = value.find_last_not_of(" \t\r\n");
      *static_cast<std::string*>(user) =
          first == std::string::npos ? "" : value.substr(first, last - first + 1);
    }
  }
  return bytes;
}

/// The options every request shares; `sink` and `error_text` must outlive
/// the transfer.
void set_common(CURL* c, const std::string& url, const http_get_options& o, body_sink& sink,
                char* error_text) {
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
}

void perform(CURL* c, body_sink& sink, const char* error_text, http_get_answer& a) {
  a.code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a.status);
  if (a.code != CURLE_OK)
    a.error = error_text[0] ? error_text : curl_easy_strerror(a.code);
  a.body = std::move(sink.data);
  a.overflowed = sink.overflowed;
}

} // namespace

http_get_answer http_get(CURL* c, const std::string& url, const http_get_options& o) {
  body_sink sink;
  sink.limit = o.max_body_bytes;
  char error_text[CURL_ERROR_SIZE] = {};
  set_common(c, url, o, sink, error_text);
  http_get_answer a;
  perform(c, sink, error_text, a);
  return a;
}

http_post_answer http_post(CURL* c, const http_post_request& r, const http_get_options& o) {
  body_sink sink;
  sink.limit = o.max_body_bytes;
  char error_text[CURL_ERROR_SIZE] = {};
  set_common(c, r.url, o, sink, error_text);
  std::unique_ptr<curl_slist, slist_deleter> headers;
  for (const auto& h : r.headers)
    headers.reset(curl_slist_append(headers.release(), h.c_str()));
  headers.reset(curl_slist_append(headers.release(), "Content-Type: application/json"));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, r.body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, long(r.body.size()));
  http_post_answer a;
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, read_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &a.retry_after);
  perform(c, sink, error_text, a);
  // The handle may be reused: no dangling pointers into this call's locals.
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, nullptr);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, nullptr);
  return a;
}

} // namespace paratune
