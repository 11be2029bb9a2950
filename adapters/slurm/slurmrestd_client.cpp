#include "adapters/http/curl_easy.hpp"
#include "adapters/slurm/slurmrestd_client.hpp"

#include "adapters/slurm/slurmrestd_json.hpp"

#include <curl/curl.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

namespace paratune {

namespace {

constexpr const char* api = "/slurm/v0.0.38";

struct slist_deleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

slurm_result<std::string> clean_token(std::string text, const std::string& where) {
  constexpr std::string_view prefix = "SLURM_JWT=";
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  if (text.rfind(prefix, 0) == 0)
    text.erase(0, prefix.size());
  if (text.empty())
    return slurm_error{slurm_failure::unauthorized, where + " holds no token"};
  // A token goes into an HTTP header: printable ASCII without spaces.
  for (unsigned char c : text)
    if (c <= 0x20 || c >= 0x7f)
      return slurm_error{slurm_failure::unauthorized,
                         where + " does not hold a token (unexpected characters)"};
  return text;
}

} // namespace

slurm_result<std::string> slurm_token_from_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return slurm_error{slurm_failure::unauthorized, "cannot read the token file " + path};
  std::ostringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (s.size() > 64 * 1024)
    return slurm_error{slurm_failure::unauthorized, "the token file " + path + " is too large"};
  return clean_token(s, "the token file " + path);
}

slurm_result<std::string> slurm_token_from_env(const std::string& variable) {
  const char* v = std::getenv(variable.c_str());
  if (!v)
    return slurm_error{slurm_failure::unauthorized, "the variable " + variable + " is not set"};
  return clean_token(v, "the variable " + variable);
}

slurmrestd_client::slurmrestd_client(slurmrestd_options options)
    : options_(std::move(options)) {
  init_curl_once();
  constexpr std::string_view unix_prefix = "unix:";
  if (options_.address.rfind(unix_prefix, 0) == 0) {
    unix_socket_ = options_.address.substr(unix_prefix.size());
    base_url_ = "http://localhost";  // the host name is not used on a socket
  } else {
    base_url_ = options_.address;
    while (!base_url_.empty() && base_url_.back() == '/')
      base_url_.pop_back();
  }
}

slurm_result<slurmrestd_client::reply> slurmrestd_client::request(
    const char* method, const std::string& route, const std::string& body) const {
  if (base_url_.empty() || (unix_socket_.empty() && base_url_.rfind("http://", 0) != 0
                            && base_url_.rfind("https://", 0) != 0))
    return slurm_error{slurm_failure::invalid_request,
                       "slurmrestd address must be unix:/path or http(s)://host:port, not '"
                           + options_.address + "'"};
  auto curl = make_curl_handle();
  if (!curl)
    return slurm_error{slurm_failure::command_failed, "cannot create a libcurl handle"};
  CURL* c = curl.get();
  std::string url = base_url_ + api + route;
  std::unique_ptr<curl_slist, slist_deleter> headers;
  auto add_header = [&](const std::string& h) {
    headers.reset(curl_slist_append(headers.release(), h.c_str()));
  };
  add_header("Accept: application/json");
  if (!body.empty())
    add_header("Content-Type: application/json");
  if (unix_socket_.empty() || !options_.token.empty()) {
    add_header("X-SLURM-USER-NAME: " + options_.user_name);
    add_header("X-SLURM-USER-TOKEN: " + options_.token);
  }
  body_sink sink;
  sink.limit = options_.max_body_bytes;
  char error_text[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  if (!unix_socket_.empty())
    curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, unix_socket_.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM (threads)
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.total_timeout.count()));
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  if (!body.empty()) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "paratune-slurm-client");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error_text);

  CURLcode rc = curl_easy_perform(c);
  std::string what = std::string(method) + " " + url
                     + (unix_socket_.empty() ? "" : " on " + unix_socket_);
  if (rc != CURLE_OK) {
    std::string why = error_text[0] ? error_text : curl_easy_strerror(rc);
    switch (rc) {
      case CURLE_COULDNT_CONNECT:
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_OPERATION_TIMEDOUT:
      case CURLE_GOT_NOTHING:
      case CURLE_RECV_ERROR:
      case CURLE_SEND_ERROR:
        return slurm_error{slurm_failure::unreachable, what + ": " + why};
      case CURLE_WRITE_ERROR:
        if (sink.overflowed)
          return slurm_error{slurm_failure::malformed,
                             what + ": answer larger than "
                                 + std::to_string(options_.max_body_bytes) + " bytes"};
        [[fallthrough]];
      default: return slurm_error{slurm_failure::command_failed, what + ": " + why};
    }
  }
  reply r;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  r.body = std::move(sink.data);
  return r;
}

slurm_result<slurm_job_id> slurmrestd_client::submit(const slurm_job_request& job) {
  if (auto bad = check_request(job))
    return *bad;
  auto r = request("POST", "/job/submit", slurmrestd_submit_body(job));
  if (!r)
    return r.error();
  auto id = parse_slurmrestd_submit(r.value().status, r.value().body);
  if (!id)
    return explain_parse_failure(id.error(), job);
  return id;
}

slurm_result<slurm_job_status> slurmrestd_client::state(slurm_job_id id) {
  auto r = request("GET", "/job/" + std::to_string(id), "");
  if (!r)
    return r.error();
  return parse_slurmrestd_job(r.value().status, r.value().body, id);
}

slurm_result<> slurmrestd_client::cancel(slurm_job_id id) {
  auto r = request("DELETE", "/job/" + std::to_string(id), "");
  if (!r)
    return r.error();
  return parse_slurmrestd_cancel(r.value().status, r.value().body);
}

slurm_result<slurm_ping> slurmrestd_client::ping() {
  auto r = request("GET", "/ping", "");
  if (!r)
    return r.error();
  return parse_slurmrestd_ping(r.value().status, r.value().body);
}

} // namespace paratune
