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

} // namespace paratune
