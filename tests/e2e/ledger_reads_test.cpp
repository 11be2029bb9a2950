// The agents read a session through their ledgers: once whole, then only
// what the pool gained since. Counted at the pool actor, on a real session
// over the bus with the simulated trainer.

#include <filesystem>
#include <map>

#include <caf/all.hpp>
#include <gtest/gtest.h>

#include "actors/pool_read_log.hpp"
#include "actors/runtime.hpp"
#include "actors/tuning_session.hpp"
#include "messages/ec.hpp"
#include "messages/type_ids.hpp"
#include "tests/e2e/small_session.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

TEST(ledger_reads, agents_read_a_session_whole_once_then_only_what_is_new) {
  const auto dir = test::make_temp_dir("ledger-reads");
  caf::actor_system_config cfg;
  cfg.add_message_types<caf::id_block::paratune>();
  caf::actor_system sys{cfg};
  runtime_options o;
  o.pool_dir = dir + "/pool";
  o.pool_reads = std::make_shared<pool_read_log>();
  auto rt = runtime::start(sys, o);
  ASSERT_TRUE(rt) << to_string(rt.error());
  caf::scoped_actor self{sys};
  const int trials = 10;
  auto session = (*rt)->start_session("reads-1", test::small_session(trials), listener_of(self));
  auto end = await_session(self, session, std::chrono::seconds(180));
  ASSERT_TRUE(end) << describe(end.error());
  EXPECT_EQ(end->state, session_state::finished);
  auto history = (*rt)->history("reads-1");
  ASSERT_TRUE(history);
  (*rt)->stop();
  const auto stored = history->size();
  std::map<std::string, int> count;
  for (const auto& e : *history)
    ++count[e.type];
  ASSERT_EQ(count["trial_result"], trials);

  const auto reads = o.pool_reads->by_reader();
  // What drives each agent's reads: one per message it acts on.
  const std::map<std::string, int> driven_by{
    {"strategy_generator", count["analysis_report"]},
    {"analysis_worker", count["analysis_request"]},
    {"validator", count["proposal"]},
    {"telemetry_agent", count["trial_started"]},
  };
  int agent_reads = 0;
  for (const auto& [agent, messages] : driven_by) {
    ASSERT_TRUE(reads.count(agent)) << agent << " never read the session";
    const auto& r = reads.at(agent);
    // The whole session once, when the agent first meets it; after that
    // only what is new.
    EXPECT_EQ(r.whole, 1) << agent;
    EXPECT_LE(r.whole + r.incremental, messages) << agent;
    // Each record read about once: a read whole per message would return
    // about trials/2 times the session (before the ledger: 5x here).
    EXPECT_LE(r.records, 2 * stored) << agent << " read " << r.records << " records of "
                                     << stored;
    agent_reads += r.whole + r.incremental;
  }
  // The telemetry agent needs only the job, which never changes: one read.
  EXPECT_EQ(reads.at("telemetry_agent").incremental, 0);
  // The session coordinator replays from where it stopped, on its timer.
  ASSERT_TRUE(reads.count("tuning_session"));
  EXPECT_EQ(reads.at("tuning_session").whole, 1); // its end, first read through its ledger
  EXPECT_LE(reads.at("tuning_session").records, 2 * stored);
  std::printf("[ reads    ] %d trials, %zu records: %d agent reads (%.1f per trial), "
              "session replays %d\n",
              trials, stored, agent_reads, double(agent_reads) / trials,
              reads.at("tuning_session").incremental);
  for (const auto& [agent, r] : reads)
    std::printf("[ reads    ] %-20s whole %d, since a number %d, %d records\n", agent.c_str(),
                r.whole, r.incremental, int(r.records));
  // The analyst's and the generator's ledgers follow the pool's records on
  // the bus after their first read; the validator reads each proposal it
  // runs from the pool (docs/security.md). At most two reads a trial.
  EXPECT_LE(agent_reads, 2 * trials);
  EXPECT_LE(reads.at("strategy_generator").whole + reads.at("strategy_generator").incremental,
            3);
  EXPECT_LE(reads.at("analysis_worker").whole + reads.at("analysis_worker").incremental, 3);
  fs::remove_all(dir);
}

} // namespace
} // namespace paratune
