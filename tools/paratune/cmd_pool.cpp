// paratune pool check DIR | pool repair DIR: a pool's damage, told and
// mended. `check` opens the pool read-only (nothing in DIR changes, and it
// works on a full disk and beside a running daemon) and exits 1 when it
// finds damage. `repair` copies every file of the pool to
// DIR/damaged-<UTC time>/ before it changes anything, then rebuilds the
// pool from the records that read, and says which numbers were lost.

#include <ctime>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "core/input_error.hpp"
#include "messages/ec.hpp"
#include "storage/pool_check.hpp"
#include "tools/paratune/command.hpp"

namespace paratune::cli {

namespace {

struct pool_options {
  std::string dir;
};

std::string seq_ranges_text(const std::vector<message_pool::seq_range>& ranges) {
  std::string out;
  uint64_t count = 0;
  for (const auto& r : ranges) {
    out += (out.empty() ? "" : ", ") + std::to_string(r.first);
    if (r.last != r.first)
      out += ".." + std::to_string(r.last);
    count += r.last - r.first + 1;
  }
  return out + " (" + std::to_string(count) + (count == 1 ? " record)" : " records)");
}

/// The checkup in lines, the first saying whether the pool is damaged.
std::string checkup_text(const std::string& dir, const pool_checkup& c) {
  std::ostringstream out;
  if (!c.damaged()) {
    out << "pool " << dir << ": no damage found (" << c.records.readable << " records, "
        << c.sessions << " sessions)\n";
    if (!c.records.repaired.empty())
      out << "lost before a repair, and noted by it: " << seq_ranges_text(c.records.repaired)
          << "\n";
    return out.str();
  }
  out << "pool " << dir << ": damaged\n";
  for (const auto& log : c.damaged_logs)
    out << "write-ahead log " << log.file << ": " << log.bytes << " bytes do not read ("
        << log.reason << ")\n";
  if (!c.records.missing.empty())
    out << "records lost: " << seq_ranges_text(c.records.missing)
        << ", their numbers given out but their batches unreadable\n";
  else if (!c.damaged_logs.empty())
    out << "records lost: none found between readable ones; the damaged bytes may have held "
           "the last records written\n";
  if (!c.records.unreadable.empty())
    out << "records unreadable: " << seq_ranges_text(c.records.unreadable) << " ("
        << c.records.first_unreadable << ")\n";
  if (!c.table_damage.empty())
    out << "table files: " << c.table_damage << "\n";
  if (!c.index_damage.empty())
    out << "session index: " << c.index_damage << "\n";
  for (const auto& [session, why] : c.unreadable_sessions)
    out << "session " << session << ": does not read: " << why << "\n";
  if (!c.open_refusal.empty())
    out << "the daemon refuses this pool: " << c.open_refusal << "\n";
  return out.str();
}

void require_pool_dir(const std::string& dir) {
  std::error_code err;
  if (!std::filesystem::is_directory(dir, err))
    throw input_error("no pool at " + dir + " (the daemon's state_dir/pool, or `tune --db`)");
}

int run_pool_check(const pool_options& o) {
  require_pool_dir(o.dir);
  auto checkup = check_pool(o.dir);
  if (!checkup) {
    std::cerr << "error: cannot check the pool " << o.dir << ": " << describe(checkup.error())
              << "\n";
    return 1;
  }
  std::cout << checkup_text(o.dir, *checkup);
  if (!checkup->damaged())
    return 0;
  std::cout << "nothing was changed; `paratune pool repair " << o.dir
            << "` copies the pool's files aside, then keeps every record that reads\n";
  return 1;
}

std::string utc_stamp() {
  const auto now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

int run_pool_repair(const pool_options& o) {
  require_pool_dir(o.dir);
  auto repaired = repair_pool(o.dir, utc_stamp());
  if (!repaired) {
    std::cerr << "error: cannot repair the pool " << o.dir << ": "
              << describe(repaired.error()) << "\n";
    return 1;
  }
  std::cout << checkup_text(o.dir, repaired->before);
  if (!repaired->before.damaged()) {
    std::cout << "nothing to repair; nothing was changed\n";
    return 0;
  }
  std::cout << "copied every file of the pool to " << repaired->evidence_dir << "\n"
            << "kept " << repaired->kept << " records; lost "
            << (repaired->lost.empty() ? std::string("none") : seq_ranges_text(repaired->lost))
            << "\n";
  auto after = check_pool(o.dir);
  if (!after || after->damaged()) {
    std::cout << "the repaired pool still does not check clean: "
              << (after ? checkup_text(o.dir, *after) : describe(after.error())) << "\n";
    return 1;
  }
  std::cout << "the repaired pool checks clean\n";
  return 0;
}

command_action setup_pool(CLI::App& app) {
  auto o = std::make_shared<pool_options>();
  auto* check = app.add_subcommand("check", "report a pool's damage; read-only, exit 1 if damaged");
  check->add_option("dir", o->dir, "the pool's directory")->required();
  auto* repair = app.add_subcommand(
    "repair", "copy a damaged pool's files aside, then keep every record that reads");
  repair->add_option("dir", o->dir, "the pool's directory")->required();
  app.require_subcommand(1);
  return [o, check] { return check->parsed() ? run_pool_check(*o) : run_pool_repair(*o); };
}

registrar pool_command{{"pool", "check or repair a pool's storage (pool check|repair DIR)",
                        setup_pool}};

} // namespace

} // namespace paratune::cli
