#include "tools/paratune/tune_view.hpp"

#include <cstdio>

#include <caf/all.hpp>

#include "messages/codec.hpp"
#include "messages/type_ids.hpp"
#include "report/session_summary.hpp"

namespace paratune::cli {

namespace {

void clear_progress(bool tty) {
  if (tty)
    std::fputs("\r\033[K", stdout);
}

} // namespace

caf::behavior tune_view(caf::stateful_actor<tune_view_state>* self, std::string session,
                        int budget, bool tty, bool quiet) {
  self->state.session = std::move(session);
  self->state.count.budget = budget;
  self->state.tty = tty;
  self->state.quiet = quiet;
  // The view keeps what it needs of the proposals to describe each result.
  auto proposals = std::make_shared<std::map<int, wire::proposal>>();
  return {
    [=](bus_atom, const std::string&, const std::string& payload) {
      auto& st = self->state;
      if (st.quiet)
        return;
      wire::envelope e;
      try {
        e = wire::decode_envelope(payload);
        if (e.type == wire::type_name<wire::proposal>()) {
          auto p = wire::body_of<wire::proposal>(e);
          (*proposals)[p.trial] = p;
          if (st.tty && !p.exhausted) {
            std::printf("\r\033[K[trial %d/%d] starting: %s", p.trial, st.count.total(p.trial),
                        p.change.c_str());
            std::fflush(stdout);
          }
        } else if (e.type == wire::type_name<wire::telemetry>() && st.tty) {
          auto t = wire::body_of<wire::telemetry>(e);
          std::printf("\r\033[K[trial %d/%d] iteration %lld: %.1f ms, %.1f TFLOP/s/GPU", t.trial,
                      st.count.total(t.trial), static_cast<long long>(t.iteration), t.elapsed_ms,
                      t.tflops_per_gpu);
          std::fflush(stdout);
        } else if (e.type == wire::type_name<wire::trial_result>()) {
          auto r = wire::body_of<wire::trial_result>(e);
          st.count.saw(r.status);
          if (r.status == trial_status::failed)
            return; // printed with its diagnosis
          const auto it = proposals->find(r.trial);
          const auto row = row_of(r, it != proposals->end() ? &it->second : nullptr);
          clear_progress(st.tty);
          std::fputs(render_trial_line(row, st.count).c_str(), stdout);
          std::fflush(stdout);
        } else if (e.type == wire::type_name<wire::failure_diagnosis>()) {
          auto d = wire::body_of<wire::failure_diagnosis>(e);
          trial_row row;
          row.index = d.trial;
          row.status = trial_status::failed;
          row.reason = d.summary;
          if (auto it = proposals->find(d.trial); it != proposals->end())
            row.change = it->second.change;
          clear_progress(st.tty);
          std::fputs(render_trial_line(row, st.count).c_str(), stdout);
          std::fflush(stdout);
        }
      } catch (const std::exception&) {
        // A view never stops on a message it cannot read.
      }
    },
  };
}

} // namespace paratune::cli
