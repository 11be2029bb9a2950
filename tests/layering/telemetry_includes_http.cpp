// core/telemetry parses Prometheus text but fetches nothing: libcurl is the
// adapters' (adapters/telemetry).
#include "adapters/http/curl_easy.hpp"
