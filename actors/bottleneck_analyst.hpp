#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/agent.hpp"
#include "core/analysis_queue.hpp"
#include "core/session_cache.hpp"
#include "core/tuning/reasoner.hpp"

namespace paratune {

/// The runnable spaces of the sessions an analyst serves (core/tuning's
/// runnable_space, empty until walked), shared by its workers. The
/// analyst's queue runs one analysis per session at a time, so no two
/// workers hold one session's space at once.
using runnable_spaces = session_cache<runnable_space>;
constexpr size_t runnable_space_capacity = 1024;

/// One worker of the Bottleneck Analysis agent (a detached actor: a
/// language model's latency blocks its own thread only). For each request
/// it is handed it brings the session's ledger up to date, decides by
/// `analysis_verdict_of` whether the request still needs an analysis, runs
/// the built-in reasoner (health state, candidates, guards) and the model's
/// turn, and publishes an analysis_report on "report.<session>".
struct analysis_worker_state : basic_agent_state<analysis_worker_actor> {
  explicit analysis_worker_state(analysis_worker_actor::pointer self);

  /// Answers the analysis_request `e`; `done` gets whether an analysis ran
  /// (false: superseded, answered already, or the history did not read),
  /// once the report is stored. `followed`: the session's records the pool
  /// published since the analyst last handed the session out; the ledger
  /// follows them, and reads the pool only when they leave a gap.
  void run(const wire::envelope& e, const std::vector<wire::envelope>& followed,
           caf::typed_response_promise<bool> done);

  /// Analyses `session` from its ledger for `request`: its results, and
  /// the trials still running, which no candidate repeats. Whether an
  /// analysis ran; `stored` runs once its report is stored.
  bool answer(const std::string& session, const wire::analysis_request& request,
              const session_ledger& ledger, std::function<void()> stored);

  std::shared_ptr<runnable_spaces> spaces;

  static inline const char* name = "analysis_worker";
};

analysis_worker_actor::behavior_type
analysis_worker(analysis_worker_actor::stateful_pointer<analysis_worker_state> self,
                agent_deps deps, std::shared_ptr<runnable_spaces> spaces,
                std::shared_ptr<ledger_book> ledgers);

/// The Bottleneck Analysis agent. Subscribes to "analysis." (requests) and
/// hands them to its workers through `analysis_queue` (core/analysis_queue.hpp):
/// different sessions in parallel, one analysis per session at a time, and a
/// request that a newer one of its session replaced while it waited is
/// never analysed. It does no analysis itself, so it always takes the next
/// request at once.
struct analyst_state : basic_agent_state<bottleneck_analyst_actor> {
  explicit analyst_state(bottleneck_analyst_actor::pointer self);

  /// Queues a request and hands out what the idle workers can take.
  void admit(const wire::envelope& e, const wire::analysis_request& r);
  /// Keeps a published record for the worker that next holds its session:
  /// the workers share one ledger book, and only the worker holding a
  /// session may touch its ledger.
  void on_record(const wire::envelope& e) override;
  /// Gives each idle worker the longest-waiting session's request.
  void hand_out();

  analysis_queue<wire::envelope> queue;
  /// Records published since each session was last handed out, oldest
  /// first; dropped past max_followed (the ledger then reads the gap).
  std::map<std::string, std::vector<wire::envelope>, std::less<>> followed;
  static constexpr size_t max_followed = 4096;
  std::vector<analysis_worker_actor> idle; ///< workers with nothing to do
  uint64_t analysed = 0;        ///< requests a worker analysed
  uint64_t skipped = 0;         ///< requests dropped here or skipped by a worker

  static inline const char* name = "bottleneck_analyst";
};

/// `workers`: how many analyses may run at once (0: one per core).
bottleneck_analyst_actor::behavior_type
bottleneck_analyst(bottleneck_analyst_actor::stateful_pointer<analyst_state> self, agent_deps deps,
                   int workers);

/// The workers an analyst starts for `requested` (0: one per core, at least one).
int analysis_worker_count(int requested);

} // namespace paratune
