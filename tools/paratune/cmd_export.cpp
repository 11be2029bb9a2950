// `paratune export SESSION [--db DIR] [--format megatron|json]`: the best
// configuration a GPU tuning session measured, read from the pool, as the
// Megatron-LM arguments to launch it with (one shell-quoted line, ready for
// a launch script) or as JSON for scripts.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "core/input_error.hpp"
#include "core/shell_quote.hpp"
#include "core/text.hpp"
#include "messages/ec.hpp"
#include "storage/message_pool.hpp"
#include "tools/paratune/command.hpp"
#include "tools/paratune/json_output.hpp"
#include "report/session_summary.hpp"

namespace paratune::cli {

namespace {

enum class export_format { megatron, json };

constexpr size_t session_id_size = 128;

nlohmann::json best_as_json(const session_summary& s) {
  const auto& b = *s.best;
  return {{"session", s.session},
          {"job", s.job.job_name},
          {"trial", b.index},
          {"pool", b.pool},
          {"config", b.config},
          {"tflops_per_gpu", b.tflops_per_gpu},
          {"mfu", b.mfu},
          {"peak_memory_mib", b.peak_memory_mib},
          {"megatron_args", megatron_args_of(s, b.config)},
          {"full_run", full_run_json(s)}};
}

int export_session(const std::string& db, const std::string& id, export_format format) {
  if (!is_plain_name(id, session_id_size))
    throw input_error("session id '" + id + "': expected a session id such as "
                      "s20261125T101500-ab12 (letters, digits, '.', '_', '-')");
  std::error_code exists_error;
  if (!std::filesystem::is_directory(db, exists_error)) // opening would create an empty pool
    throw input_error("no pool at " + db + " (--db: the directory `tune --db` wrote)");
  auto pool = message_pool::open(db);
  if (!pool) {
    std::cerr << "error: cannot open the pool " << db << ": " << describe(pool.error()) << "\n";
    return 1;
  }
  const auto history = (*pool)->session_history(id);
  if (!history) {
    std::cerr << "error: cannot read session " << id << ": " << describe(history.error()) << "\n";
    return 1;
  }
  const auto s = summarize(id, *history);
  if (history->empty() || s.job.job_name.empty())
    throw input_error("no GPU tuning session '" + id + "' in the pool " + db);
  if (!s.best) {
    std::cerr << "error: session " << id << " has no measured trial to export\n";
    return 1;
  }
  if (format == export_format::json)
    print_json(best_as_json(s));
  else
    std::cout << shell_command(megatron_args_of(s, s.best->config)) << "\n";
  return 0;
}

command_action setup(CLI::App& sub) {
  auto id = std::make_shared<std::string>();
  auto db = std::make_shared<std::string>("paratune-pool");
  auto format = std::make_shared<std::string>("megatron");
  sub.add_option("SESSION", *id, "the session id, as `tune` printed it")->required();
  sub.add_option("--db", *db, "the pool directory (default ./paratune-pool)");
  sub.add_option("--format", *format, "megatron (default): the arguments on one line; json")
    ->check(CLI::IsMember({"megatron", "json"}));
  return [id, db, format] {
    return export_session(*db, *id,
                          *format == "json" ? export_format::json : export_format::megatron);
  };
}

} // namespace

static registrar r{{"export",
                    "The best configuration of a tuning session, as Megatron-LM arguments or JSON",
                    setup}};

} // namespace paratune::cli
