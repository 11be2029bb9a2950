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
#include "core/tuning/reasoner.hpp"

namespace paratune {

/// The runnable spaces of the sessions an analyst serves (core/tuning's
/// runnable_space), shared by its workers. The analyst's queue runs one
/// analysis per session at a time, so no two workers hold one session's
/// space at once. Holds the `capacity` sessions analysed last.
class runnable_spaces {
public:
  explicit runnable_spaces(size_t capacity = 1024) : capacity_(capacity) {}
  /// `session`'s space, empty (not walked) the first time.
  std::shared_ptr<runnable_space> of(const std::string& session);

private:
  std::mutex mutex_;
  size_t capacity_;
  uint64_t clock_ = 0;
  std::map<std::string, std::pair<uint64_t, std::shared_ptr<runnable_space>>> spaces_;
};

/// One worker of the Bottleneck Analysis agent (a detached actor: a
/// language model's latency blocks its own thread only). For each request
/// it is handed it reads the session's history from the pool, decides by
/// `analysis_verdict_of` whether the request still needs an analysis, runs
/// the built-in reasoner (health state, candidates, guards) and the model's
/// turn, and publishes an analysis_report on "report.<session>".
struct analysis_worker_state : agent_state {
  explicit analysis_worker_state(caf::event_based_actor* self);

  /// Answers the analysis_request `e`; `done` gets whether an analysis ran
  /// (false: superseded, answered already, or the history did not read),
  /// once the report is stored.
  void run(const wire::envelope& e, caf::typed_response_promise<bool> done);

  /// Analyses `session` from its stored history for `request`: its
  /// results, and the trials still running, which no candidate repeats.
  /// Whether an analysis ran; `stored` runs once its report is stored.
  bool answer(const std::string& session, const wire::analysis_request& request,
              const std::vector<wire::envelope>& history, std::function<void()> stored);

  std::shared_ptr<runnable_spaces> spaces;

  static inline const char* name = "analysis_worker";
};

caf::behavior analysis_worker(caf::stateful_actor<analysis_worker_state>* self, agent_deps deps,
                              std::shared_ptr<runnable_spaces> spaces);

/// The Bottleneck Analysis agent. Subscribes to "analysis." (requests) and
/// hands them to its workers through `analysis_queue` (core/analysis_queue.hpp):
/// different sessions in parallel, one analysis per session at a time, and a
/// request that a newer one of its session replaced while it waited is
/// never analysed. It does no analysis itself, so it always takes the next
/// request at once.
struct analyst_state : agent_state {
  explicit analyst_state(caf::event_based_actor* self);

  /// Queues a request and hands out what the idle workers can take.
  void admit(const wire::envelope& e, const wire::analysis_request& r);
  /// Gives each idle worker the longest-waiting session's request.
  void hand_out();

  analysis_queue<wire::envelope> queue;
  std::vector<caf::actor> idle; ///< workers with nothing to do
  uint64_t analysed = 0;        ///< requests a worker analysed
  uint64_t skipped = 0;         ///< requests dropped here or skipped by a worker

  static inline const char* name = "bottleneck_analyst";
};

/// `workers`: how many analyses may run at once (0: one per core).
caf::behavior bottleneck_analyst(caf::stateful_actor<analyst_state>* self, agent_deps deps,
                                 int workers);

/// The workers an analyst starts for `requested` (0: one per core, at least one).
int analysis_worker_count(int requested);

} // namespace paratune
