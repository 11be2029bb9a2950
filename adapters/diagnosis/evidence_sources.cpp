#include "adapters/diagnosis/evidence_sources.hpp"

#include <functional>
#include <vector>

#include "adapters/diagnosis/evidence_readers.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"
#include "adapters/profile/kineto_trace.hpp"
#include "adapters/profile/xprof_http_client.hpp"
#include "adapters/profile/xprof_reader.hpp"
#include "core/input_error.hpp"

namespace paratune {

namespace {

// Every operation, not just the top 20: the Analyzer weighs the whole profile.
constexpr std::size_t all_ops = 100000;

bool is_url(const std::string& s) {
  return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0;
}

std::string query_value(const std::string& query, const std::string& key) {
  const auto at = query.find(key + "=");
  if (at == std::string::npos)
    return {};
  const auto start = at + key.size() + 1;
  return query.substr(start, query.find('&', start) - start);
}

xprof_profile read_xprof_url(const evidence_request& r) {
  const auto q = r.xprof.find('?');
  const std::string base = r.xprof.substr(0, q);
  const std::string query = q == std::string::npos ? "" : r.xprof.substr(q + 1);
  xprof_http_options o;
  o.connect_timeout = r.connect_timeout;
  o.total_timeout = r.total_timeout;
  xprof_http_client client(base, o);
  std::string run = query_value(query, "run");
  if (run.empty()) {
    const auto runs = client.runs();
    if (runs.empty())
      throw input_error(base + ": the profile server lists no runs");
    run = runs.front();
  }
  return client.fetch_profile(run, query_value(query, "host"), {all_ops});
}

diagnosis_evidence read_xprof(const evidence_request& r) {
  if (is_url(r.xprof))
    return evidence_from_xprof(read_xprof_url(r), "xprof: " + r.xprof);
  xprof_dir_options o;
  o.read.top_n = all_ops;
  return evidence_from_xprof(read_xprof_dir(r.xprof, o), "xprof: " + r.xprof);
}

diagnosis_evidence read_kineto(const evidence_request& r) {
  kineto_options o;
  o.top_n = 200;
  return evidence_from_kineto(read_kineto_trace(r.kineto, o), "kineto: " + r.kineto);
}

diagnosis_evidence read_log(const evidence_request& r) {
  return evidence_from_megatron(parse_megatron_log_file(r.megatron_log),
                                "megatron log: " + r.megatron_log);
}

} // namespace

diagnosis_evidence gather_evidence(const evidence_request& r) {
  using reader = std::function<diagnosis_evidence(const evidence_request&)>;
  std::vector<std::pair<std::string, reader>> wanted;
  if (!r.xprof.empty())
    wanted.emplace_back(r.xprof, read_xprof);
  if (!r.kineto.empty())
    wanted.emplace_back(r.kineto, read_kineto);
  if (!r.megatron_log.empty())
    wanted.emplace_back(r.megatron_log, read_log);
  if (wanted.empty())
    throw input_error("no profile given: pass --xprof, --kineto or --megatron-log");
  std::vector<diagnosis_evidence> read;
  std::vector<std::string> failures;
  for (const auto& [what, fn] : wanted) {
    try {
      read.push_back(fn(r));
    } catch (const std::exception& e) {
      // input_error, xprof_http_error, a damaged gzip: the message names it.
      failures.push_back(e.what());
    }
  }
  if (read.empty()) {
    std::string msg = "no profile could be read";
    for (const auto& f : failures)
      msg += "; " + f;
    throw input_error(msg);
  }
  diagnosis_evidence out = std::move(read.front());
  for (std::size_t i = 1; i < read.size(); ++i)
    merge_evidence(out, read[i]);
  for (const auto& f : failures) {
    out.partial = true;
    out.warnings.push_back("not read: " + f);
  }
  return out;
}

} // namespace paratune
