#include "actors/bottleneck_analyst.hpp"

#include <algorithm>
#include <thread>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/model_turn.hpp"
#include "messages/conversions.hpp"
#include "messages/topics.hpp"

namespace paratune {

analysis_worker_state::analysis_worker_state(analysis_worker_actor::pointer self)
  : basic_agent_state(self) {
}

void analysis_worker_state::run(const wire::envelope& e,
                                const std::vector<wire::envelope>& followed,
                                caf::typed_response_promise<bool> done) {
  const auto session = e.session;
  if (auto ledger = ledgers->find(session))
    for (const auto& r : followed)
      if (!ledger->follow(r))
        break; // a gap: the read below fills it
  wire::analysis_request request;
  try {
    request = wire::body_of<wire::analysis_request>(e);
  } catch (const std::exception& err) {
    spdlog::warn("analysis_worker: session {}: {}", session, err.what());
    done.deliver(false);
    return;
  }
  with_current_ledger(
    session, e.seq,
    [this, session, request, done](const session_ledger& ledger) mutable {
      bool analysed = false;
      try {
        analysed = answer(session, request, ledger, [done]() mutable { done.deliver(true); });
      } catch (const std::exception& err) {
        spdlog::error("analysis_worker: session {}: {}", session, err.what());
      }
      if (!analysed)
        done.deliver(false);
    },
    [session, done](const caf::error& err) mutable {
      spdlog::error("analysis_worker: cannot read session {}: {}", session, describe(err));
      done.deliver(false);
    });
}

bool analysis_worker_state::answer(const std::string& session,
                                   const wire::analysis_request& request,
                                   const session_ledger& ledger,
                                   std::function<void()> stored) {
  const int after_trial = request.after_trial;
  const auto* job = ledger.job();
  if (!job) {
    spdlog::warn("bottleneck_analyst: session {} has no session_opened record", session);
    return false;
  }
  const auto* stored_report = ledger.report_for(request.request);
  switch (analysis_verdict_of(request.request, ledger.latest_request(), stored_report != nullptr)) {
  case analysis_verdict::superseded:
    spdlog::debug("bottleneck_analyst: session {}: request {} superseded by {}, skipped", session,
                  request.request, ledger.latest_request());
    return false;
  case analysis_verdict::answered:
    // A re-ask of a request already reported on (its answer was lost on the
    // bus, or it came while the first copy ran): the stored report again,
    // which the generator answers as it would a fresh one.
    publish_only(topics::report(session), *stored_report);
    return false;
  case analysis_verdict::analyse:
    break;
  }
  wire::analysis_report report;
  try {
    if (!ledger.unreadable().empty())
      throw std::runtime_error("the session's history does not read: " + ledger.unreadable());
    const auto& session_record = *job;
    auto ctx = wire::context_of(session_record);
    const auto outcomes = ledger.outcomes();
    const auto pending = ledger.pending();
    const auto space = spaces ? spaces->of(session) : nullptr;
    auto a = analyze(ctx, outcomes, pending, space.get());
    for (auto& x : health_turn(session_record, ctx, outcomes, pending, space.get(), a,
                               after_trial, request.request))
      store(wire::make_envelope(session, after_trial, x));
    for (auto& x : model_turn(session_record, ctx, outcomes, pending, a, after_trial,
                              request.request))
      store(wire::make_envelope(session, after_trial, x));
    report = wire::to_wire(a, after_trial);
  } catch (const std::exception& e) {
    // A history that does not read: the session learns why and ends,
    // instead of asking again for an analysis that cannot succeed.
    spdlog::error("bottleneck_analyst: session {}: {}", session, e.what());
    report.after_trial = after_trial;
    report.error = e.what();
  }
  report.request = request.request;
  report.slots = request.slots;
  store_and_publish(
    topics::report(session), wire::make_envelope(session, after_trial, report),
    [stored](uint64_t) { stored(); },
    [this, session, stored](const caf::error& err) {
      spdlog::error("{}: cannot store the analysis of session {}: {}", self->name(), session,
                    describe(err));
      stored();
    });
  return true;
}

analysis_worker_actor::behavior_type
analysis_worker(analysis_worker_actor::stateful_pointer<analysis_worker_state> self,
                agent_deps deps, std::shared_ptr<runnable_spaces> spaces,
                std::shared_ptr<ledger_book> ledgers) {
  self->state.start(std::move(deps));
  self->state.spaces = std::move(spaces);
  self->state.ledgers = std::move(ledgers);
  return {
    [self](analyse_atom, const wire::envelope& e,
           const std::vector<wire::envelope>& followed) -> caf::result<bool> {
      auto done = self->make_response_promise<bool>();
      self->state.run(e, followed, done);
      return done;
    },
  };
}

analyst_state::analyst_state(bottleneck_analyst_actor::pointer self) : basic_agent_state(self) {
  on<wire::analysis_request>([this](const wire::envelope& e, const wire::analysis_request& r) {
    admit(e, r);
  });
}

void analyst_state::admit(const wire::envelope& e, const wire::analysis_request& r) {
  if (queue.push(e.session, r.request, e) != analysis_admission::queued) {
    ++skipped;
    spdlog::debug("bottleneck_analyst: session {}: request {} waits behind a newer one, dropped",
                  e.session, r.request);
  }
  hand_out();
}

void analyst_state::on_record(const wire::envelope& e) {
  auto& records = followed[e.session];
  if (records.size() >= max_followed)
    records.clear(); // the worker's ledger reads what was dropped
  records.push_back(e);
  if (e.type == wire::type_name<wire::session_status>()
      && is_final(wire::body_of<wire::session_status>(e).state))
    followed.erase(e.session);
}

void analyst_state::hand_out() {
  while (!idle.empty()) {
    auto next = queue.take();
    if (!next)
      return;
    auto worker = idle.back();
    idle.pop_back();
    std::vector<wire::envelope> records;
    if (auto it = followed.find(next->first); it != followed.end()) {
      records = std::move(it->second);
      followed.erase(it);
    }
    self->request(worker, caf::infinite, analyse_atom_v, next->second, std::move(records))
      .then(
        [this, worker, session = next->first](bool ran) {
          if (ran)
            ++analysed;
          else
            ++skipped;
          queue.done(session);
          idle.push_back(worker);
          hand_out();
        },
        [this, worker, session = next->first](caf::error& err) {
          // A worker that died takes the analyst down with it (linked);
          // any other refusal frees the session for its next request.
          spdlog::error("bottleneck_analyst: session {}: {}", session, describe(err));
          queue.done(session);
          idle.push_back(worker);
          hand_out();
        });
  }
}

int analysis_worker_count(int requested) {
  if (requested > 0)
    return requested;
  return std::max(1, int(std::thread::hardware_concurrency()));
}

bottleneck_analyst_actor::behavior_type
bottleneck_analyst(bottleneck_analyst_actor::stateful_pointer<analyst_state> self, agent_deps deps,
                   int workers) {
  auto& st = self->state;
  auto spaces = std::make_shared<runnable_spaces>(runnable_space_capacity);
  // One book for all workers: a session's ledger stays current whichever
  // worker answers its next request.
  auto ledgers = std::make_shared<ledger_book>(ledger_book_capacity);
  for (int i = 0; i < analysis_worker_count(workers); ++i) {
    // Linked: a worker that dies ends the analyst, which the watchdog
    // reports; the analyst's end stops its workers.
    auto w = self->spawn<caf::detached + caf::linked>(analysis_worker, deps, spaces, ledgers);
    st.idle.push_back(w);
  }
  return bus_agent(self, std::move(deps));
}

} // namespace paratune
