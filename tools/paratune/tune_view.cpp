#include "tools/paratune/tune_view.hpp"

#include <cstdio>

#include <caf/all.hpp>

#include "core/human_units.hpp"
#include "messages/codec.hpp"
#include "messages/topics.hpp"
#include "messages/type_ids.hpp"
#include "report/session_summary.hpp"

namespace paratune::cli {

namespace {

void clear_progress(bool tty) {
  if (tty)
    std::fputs("\r\033[K", stdout);
}

/// A whole line, flushed at once: a file or pipe reader sees it now.
void print_line(tune_view_state& st, const std::string& line) {
  clear_progress(st.tty);
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);
  st.last_line = std::chrono::steady_clock::now();
}

/// "trial  2/10  started   Change TP from 8 to 4. (pool sim)"
std::string started_line(const tune_view_state& st, const wire::trial_started& s,
                         const std::string& change) {
  const auto where = s.pool.empty() ? std::string() : " (pool " + s.pool + ")";
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s  started   %s%s\n",
                trial_count_of(st.ledger, st.budget).label(s.trial).c_str(),
                change.empty() ? "(no proposal seen)" : change.c_str(), where.c_str());
  return buf;
}

/// "trial  2/10  running   iteration 40: 1.54 s per iteration, 180.2 TFLOP/s/GPU"
std::string heartbeat_line(const tune_view_state& st, const wire::telemetry& t) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s  running   iteration %lld: %s per iteration, "
                                 "%.1f TFLOP/s/GPU\n",
                trial_count_of(st.ledger, st.budget).label(t.trial).c_str(),
                static_cast<long long>(t.iteration), human_duration(t.elapsed_ms).c_str(),
                t.tflops_per_gpu);
  return buf;
}

/// The proposal that asked for `trial`, as the ledger holds it.
const wire::proposal* proposal_of(const tune_view_state& st, int trial) {
  const auto* t = st.ledger.trial(trial);
  return t && t->proposal ? &*t->proposal : nullptr;
}

/// What a stored record, just applied to the view's ledger, prints.
void show_record(tune_view_state& st, const wire::envelope& e) {
  const auto count = trial_count_of(st.ledger, st.budget);
  if (e.type == wire::type_name<wire::proposal>()) {
    const auto p = wire::body_of<wire::proposal>(e);
    if (st.tty && !p.exhausted && p.trial > 0) {
      std::printf("\r\033[K[%s] starting: %s", count.label(p.trial).c_str(), p.change.c_str());
      std::fflush(stdout);
    }
  } else if (e.type == wire::type_name<wire::trial_started>() && !st.tty) {
    // Launched now: the terminal's progress line said so at the proposal.
    const auto s = wire::body_of<wire::trial_started>(e);
    const auto* p = proposal_of(st, s.trial);
    print_line(st, started_line(st, s, p ? p->change : ""));
  } else if (e.type == wire::type_name<wire::trial_result>()) {
    const auto r = wire::body_of<wire::trial_result>(e);
    if (r.status == trial_status::failed)
      return; // printed with its diagnosis
    print_line(st, render_trial_line(row_of(r, proposal_of(st, r.trial)), count));
  } else if (e.type == wire::type_name<wire::failure_diagnosis>()) {
    const auto d = wire::body_of<wire::failure_diagnosis>(e);
    trial_row row;
    row.index = d.trial;
    row.status = trial_status::failed;
    row.reason = d.summary;
    if (const auto* p = proposal_of(st, d.trial))
      row.change = p->change;
    print_line(st, render_trial_line(row, count));
  }
}

void show_telemetry(tune_view_state& st, const wire::telemetry& t) {
  if (st.tty) {
    std::printf("\r\033[K[%s] iteration %lld: %s, %.1f TFLOP/s/GPU",
                trial_count_of(st.ledger, st.budget).label(t.trial).c_str(),
                static_cast<long long>(t.iteration), human_duration(t.elapsed_ms).c_str(),
                t.tflops_per_gpu);
    std::fflush(stdout);
  } else if (std::chrono::steady_clock::now() - st.last_line >= tune_heartbeat) {
    print_line(st, heartbeat_line(st, t));
  }
}

} // namespace

bus_agent_actor::behavior_type tune_view(bus_agent_actor::stateful_pointer<tune_view_state> self,
                                         std::string session, int budget, bool tty, bool quiet) {
  self->state.ledger = session_ledger{session};
  self->state.session = std::move(session);
  self->state.budget = budget;
  self->state.tty = tty;
  self->state.quiet = quiet;
  return {
    [=](bus_atom, const std::string& topic, const std::string& payload) {
      auto& st = self->state;
      if (st.quiet)
        return;
      try {
        const auto e = wire::decode_envelope(payload);
        if (e.session != st.session)
          return; // a longer id that shares the topic's prefix
        if (topic.starts_with(topics::record_prefix)) {
          // A record lost on the bus is only a line missing here: the view
          // applies what comes, in the pool's order.
          st.ledger.apply(e);
          show_record(st, e);
        } else if (e.type == wire::type_name<wire::telemetry>()) {
          show_telemetry(st, wire::body_of<wire::telemetry>(e));
        }
      } catch (const std::exception&) {
        // A view never stops on a message it cannot read.
      }
    },
  };
}

} // namespace paratune::cli
