// `paratune report SESSION [--db DIR] [--format md|html|json] [-o FILE]`: a
// GPU tuning session read back from the pool as a document that opens on
// the answer (the best configuration, its figures and gains, its production
// command, what it is worth over the full run), then the charts, the trials
// table and every trial's decision and outcome.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "adapters/process/process_environment.hpp"
#include "core/input_error.hpp"
#include "core/secret_env.hpp"
#include "core/secret_redactor.hpp"
#include "report/charts.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/markdown_report.hpp"
#include "tools/paratune/atomic_file.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/daemon_client_options.hpp"
#include "report/tpu_report.hpp"
#include "tools/paratune/json_output.hpp"
#include "tools/paratune/pool_reader.hpp"

namespace paratune::cli {

namespace {

enum class report_format { md, html, json };

struct report_options {
  std::string id;
  std::string db = "paratune-pool";
  std::string format = "md";
  std::string output;  ///< empty: standard output
  daemon_client_options daemon; ///< --daemon or $PARATUNE_DAEMON: read the session from it
};

report_format report_format_of(const std::string& word) {
  if (word == "html")
    return report_format::html;
  if (word == "json")
    return report_format::json;
  return report_format::md;
}

// Writes `text` to `path` atomically; false (after saying why) when it failed.
bool write_or_say(const std::string& path, const std::string& text) {
  if (const auto error = write_file_atomically(path, text)) {
    std::cerr << "error: " << *error << "\n";
    return false;
  }
  return true;
}

// The markdown and, beside an output file, its charts as NAME.<chart>.svg
// (report_charts: NAME.trials.svg, NAME.mfu.svg, ...). The charts are
// written first, so the document never links to a file that is not there.
int emit_markdown(const session_report& r, const std::string& output,
                  const secret_redactor& hide) {
  if (output.empty()) {
    std::cout << hide.redact(render_markdown(r, {}));
    return 0;
  }
  const auto path = std::filesystem::path(output);
  const auto stem = path.stem().string();
  const auto beside = [&](const std::string& name) { return (path.parent_path() / name).string(); };
  markdown_charts names;
  for (const auto& c : report_charts(r.summary)) {
    names.files.push_back({c.title, stem + "." + c.suffix + ".svg"});
    if (!write_or_say(beside(names.files.back().name), c.svg))
      return 1;
  }
  return write_or_say(output, hide.redact(render_markdown(r, names))) ? 0 : 1;
}

int emit(const std::string& text, const std::string& output, const secret_redactor& hide) {
  if (output.empty()) {
    std::cout << hide.redact(text);
    return 0;
  }
  return write_or_say(output, hide.redact(text)) ? 0 : 1;
}

/// The session's secrets as this process's environment holds them: a
/// value that reached the pool before it was redacted there (a record
/// written by an older paratune) is not shown either.
secret_redactor report_redactor(const session_report& r) {
  std::vector<std::string> names = r.summary.job.secret_env;
  names.insert(names.end(), always_secret_env().begin(), always_secret_env().end());
  return secret_redactor(values_in_this_process(names));
}

/// The session's records: from the daemon when --daemon or
/// $PARATUNE_DAEMON names one (its pool is locked while it runs), else from
/// the pool directory.
std::optional<std::vector<wire::envelope>> records_of(const report_options& o, int& status) {
  if (o.daemon.source() == session_source::daemon)
    return o.daemon.history(o.id, status);
  status = 1;
  const auto pool = open_existing_pool(o.db, pool_access::read);
  if (!pool)
    return std::nullopt;
  return read_session(*pool, o.id);
}

/// A TPU session's report, as its ledger holds it: its end, or its runs so
/// far while it runs. Its
/// records hold no secret: the simulator's environment never had one.
int emit_tpu(const report_options& o, const wire::tpu_session_end& end) {
  const secret_redactor hide(values_in_this_process(always_secret_env()));
  switch (report_format_of(o.format)) {
    case report_format::md: return emit(render_tpu_markdown(o.id, end), o.output, hide);
    case report_format::html: return emit(render_tpu_html(o.id, end), o.output, hide);
    case report_format::json: {
      std::ostringstream text;
      print_json(tpu_report_json(o.id, end), text);
      return emit(text.str(), o.output, hide);
    }
  }
  return 1;
}

int run_report(const report_options& o) {
  check_session_id(o.id);
  int status = 1;
  const auto history = records_of(o, status);
  if (!history)
    return status;
  if (const auto tpu = tpu_progress_of(*history))
    return emit_tpu(o, *tpu);
  const auto r = report_of(o.id, *history);
  if (history->empty() || r.summary.job.job_name.empty())
    throw input_error("no GPU tuning session '" + o.id + "' in "
                      + (o.daemon.source() == session_source::pool
                           ? "the pool " + o.db
                           : "the daemon at " + o.daemon.where()));
  const auto hide = report_redactor(r);
  switch (report_format_of(o.format)) {
    case report_format::md: return emit_markdown(r, o.output, hide);
    case report_format::html: return emit(render_html(r), o.output, hide);
    case report_format::json: {
      std::ostringstream text;
      print_json(report_json(r), text);
      return emit(text.str(), o.output, hide);
    }
  }
  return 1;
}

command_action setup_report(CLI::App& sub) {
  auto o = std::make_shared<report_options>();
  sub.add_option("SESSION", o->id, "the session id, as `tune` printed it")->required();
  o->daemon.add_to(sub,
                   sub.add_option("--db", o->db, "the pool directory (default ./paratune-pool)"));
  sub.add_option("--format", o->format,
                 "md (default): GitHub markdown, charts as SVG files beside -o; html: one "
                 "self-contained page; json: for scripts")
    ->check(CLI::IsMember({"md", "html", "json"}));
  sub.add_option("-o,--output", o->output,
                 "write the report to this file (atomically) instead of standard output");
  return [o] { return run_report(*o); };
}

} // namespace

static registrar report_command{{"report",
                    "A tuning session as a report: the best configuration and its command, charts, trials, decisions; a TPU session: its runs and best mesh",
                    setup_report}};

} // namespace paratune::cli
