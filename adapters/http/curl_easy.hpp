#pragma once

#include <cstddef>
#include <memory>
#include <string>

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

} // namespace paratune
