#include "actors/session.hpp"

#include <chrono>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/bus_bridge.hpp"
#include "messages/codec.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

namespace {

using self_ptr = caf::stateful_actor<session_state>*;

constexpr auto tick_interval = std::chrono::milliseconds(500);
constexpr int64_t quiet_limit_ms = 8000; ///< re-ask after this long without news

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::steady_clock::now().time_since_epoch()).count();
}

void finish(self_ptr self, const agent_deps& deps, const std::string& state) {
  auto& st = self->state;
  if (st.done)
    return;
  st.done = true;
  with_history(self, deps, st.id, [=](std::vector<wire::envelope> history) {
    auto outcomes = wire::outcomes_of(history);
    wire::session_status s;
    s.state = state;
    s.trials_done = int(outcomes.size());
    for (size_t i = 0; i < outcomes.size(); ++i)
      if (outcomes[i].status == trial_status::succeeded
          && outcomes[i].tflops_per_gpu > s.best_tflops) {
        s.best_tflops = outcomes[i].tflops_per_gpu;
        s.best_trial = int(i) + 1;
      }
    s.text = state == "exhausted" ? "all plausible configurations have been tried"
                                  : "trial budget spent";
    const auto id = self->state.id;
    store_and_publish(self, deps, topics::session_status(id), wire::make_envelope(id, 0, s),
                      [=](uint64_t) {
                        self->send(self->state.listener, done_atom_v, id, state);
                        self->quit();
                      });
  });
}

void request_analysis(self_ptr self, const agent_deps& deps, int after) {
  auto& st = self->state;
  st.requested_after = after;
  st.last_progress_ms = now_ms();
  store_and_publish(self, deps, topics::analysis(st.id),
                    wire::make_envelope(st.id, after, wire::analysis_request{after}));
}

void next_step(self_ptr self, const agent_deps& deps) {
  auto& st = self->state;
  if (st.done || st.awaiting_diagnosis != 0)
    return;
  if (int(st.launched.size()) >= st.job.trials)
    return finish(self, deps, "finished");
  request_analysis(self, deps, int(st.results.size()));
}

/// Handles one record, from the bus or replayed from the pool; each is
/// handled once.
void handle(self_ptr self, const agent_deps& deps, const wire::envelope& e) {
  auto& st = self->state;
  if (st.done || e.session != st.id)
    return;
  if (e.type == wire::type_name<wire::proposal>()) {
    if (wire::body_of<wire::proposal>(e).exhausted)
      finish(self, deps, "exhausted");
    st.last_progress_ms = now_ms();
  } else if (e.type == wire::type_name<wire::trial_started>()) {
    st.last_progress_ms = now_ms();
  } else if (e.type == wire::type_name<wire::trial_result>()) {
    auto r = wire::body_of<wire::trial_result>(e);
    if (!st.results.insert(r.trial).second)
      return;
    st.last_progress_ms = now_ms();
    if (r.status != "skipped")
      st.launched.insert(r.trial);
    if (r.status == "failed")
      st.awaiting_diagnosis = r.trial;
    next_step(self, deps);
  } else if (e.type == wire::type_name<wire::failure_diagnosis>()) {
    if (e.trial == st.awaiting_diagnosis) {
      st.awaiting_diagnosis = 0;
      next_step(self, deps);
    }
  }
}

/// Replays what the pool holds (lost bus messages) and re-asks a quiet step.
void on_tick(self_ptr self, const agent_deps& deps) {
  if (self->state.done)
    return;
  with_history(self, deps, self->state.id, [=](std::vector<wire::envelope> history) {
    for (const auto& e : history) {
      try {
        handle(self, deps, e);
      } catch (const std::exception& err) {
        spdlog::warn("session: skipped a stored record: {}", err.what());
      }
    }
    auto& st = self->state;
    if (!st.done && now_ms() - st.last_progress_ms > quiet_limit_ms && st.requested_after >= 0
        && st.awaiting_diagnosis == 0 && int(st.results.size()) == st.requested_after) {
      spdlog::info("session {}: no answer to analysis request {}, asking again", st.id,
                   st.requested_after);
      request_analysis(self, deps, st.requested_after);
    }
  });
  self->delayed_send(self, tick_interval, tick_atom_v);
}

} // namespace

caf::behavior session(self_ptr self, agent_deps deps, bus_bridge* bridge, std::string id,
                      wire::session_opened job, caf::actor listener, bool resume) {
  auto& st = self->state;
  st.id = id;
  st.job = std::move(job);
  st.listener = std::move(listener);
  st.last_progress_ms = now_ms();
  std::vector<int> subscriptions;
  for (const auto& prefix : {topics::proposal(id), topics::trial_prefix(id),
                             topics::failure_prefix(id)})
    subscriptions.push_back(bridge->subscribe(prefix, self));
  self->attach_functor([bridge, subscriptions] {
    for (int s : subscriptions)
      bridge->unsubscribe(s);
  });
  if (resume) {
    // The pool has the session: the first tick replays it and continues.
    st.requested_after = -1;
    self->send(self, tick_atom_v);
  } else {
    store_and_publish(self, deps, topics::session_status(id),
                      wire::make_envelope(id, 0, st.job), [=](uint64_t) {
                        request_analysis(self, deps, 0);
                        self->delayed_send(self, tick_interval, tick_atom_v);
                      });
  }
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      auto e = decode_bus(self->name(), topic, payload);
      if (!e)
        return;
      try {
        handle(self, deps, *e);
      } catch (const std::exception& err) {
        spdlog::warn("session: dropped a message on '{}': {}", topic, err.what());
      }
    },
    [=](tick_atom) { on_tick(self, deps); },
  };
}

} // namespace paratune
