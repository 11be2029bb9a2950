#include "ledger/session_ledger.hpp"
#include "ledger/tpu_runs.hpp"

#include <algorithm>

#include "messages/codec.hpp"
#include "messages/conversions.hpp"

namespace paratune {

void session_ledger::apply(const std::vector<wire::envelope>& records) {
  for (const auto& e : records)
    apply(e);
}

void session_ledger::apply(const wire::envelope& e) {
  if (e.seq > 0) {
    if (e.seq <= last_seq_)
      return; // applied already: a replay overlaps what was read before
    last_seq_ = e.seq;
  }
  if (session_.empty())
    session_ = e.session;
  else if (e.session != session_)
    return;
  ++applied_;
  try {
    apply_body(e);
  } catch (const std::exception& err) {
    if (unreadable_.empty())
      unreadable_ = "record " + std::to_string(e.seq) + " (" + e.type + "): " + err.what();
  }
}

void session_ledger::apply_read(const std::vector<wire::envelope>& records) {
  apply(records);
  behind_ = false;
}

bool session_ledger::follow(const wire::envelope& e) {
  if (e.seq == 0 || e.session != session_)
    return false;
  following_ = true;
  if (e.seq <= last_seq_ && last_seq_ > 0)
    return true; // read from the pool before its copy came
  if (last_seq_ == 0 || e.prev_seq != last_seq_) {
    behind_ = true; // this record, and what follows it, waits for a read
    return false;
  }
  apply(e);
  return true;
}

void session_ledger::apply_body(const wire::envelope& e) {
  if (e.type == wire::type_name<wire::session_opened>()) {
    if (!job_) {
      job_ = wire::body_of<wire::session_opened>(e);
      opened_ms_ = e.ts_ms;
      llm_usage_.take_agents(*job_);
    }
  } else if (e.type == wire::type_name<wire::analysis_request>()) {
    on_request(wire::body_of<wire::analysis_request>(e));
  } else if (e.type == wire::type_name<wire::analysis_report>()) {
    const auto r = wire::body_of<wire::analysis_report>(e);
    reports_.emplace(r.request, e); // the first stored answer stands
  } else if (e.type == wire::type_name<wire::proposal>()) {
    on_proposal(e);
  } else if (e.type == wire::type_name<wire::trial_started>()) {
    trial_entry(e.trial).started = e;
  } else if (e.type == wire::type_name<wire::trial_job>()) {
    auto j = wire::body_of<wire::trial_job>(e);
    trial_entry(j.trial).job = std::move(j);
  } else if (e.type == wire::type_name<wire::trial_interrupted>()) {
    // That run is over; a daemon that restarts may start another.
    auto& t = trial_entry(e.trial);
    t.started.reset();
    t.job.reset();
  } else if (e.type == wire::type_name<wire::trial_result>()) {
    on_result(wire::body_of<wire::trial_result>(e), e.seq);
  } else if (e.type == wire::type_name<wire::failure_diagnosis>()) {
    auto d = wire::body_of<wire::failure_diagnosis>(e);
    trial_entry(d.trial).diagnosis = std::move(d);
  } else if (e.type == wire::type_name<wire::dialogue_turn>()) {
    dialogue_.push_back(wire::body_of<wire::dialogue_turn>(e));
  } else if (e.type == wire::type_name<wire::llm_exchange>()) {
    llm_usage_.count(wire::body_of<wire::llm_exchange>(e));
  } else if (e.type == wire::type_name<wire::session_status>()) {
    auto s = wire::body_of<wire::session_status>(e);
    if (is_final(s.state) && !end_)
      end_ = std::move(s);
  } else if (e.type == wire::type_name<wire::tpu_session_opened>()) {
    if (!tpu_job_) {
      tpu_job_ = wire::body_of<wire::tpu_session_opened>(e);
      tpu_runner_ = tpu_runner_job(*tpu_job_);
      if (tpu_job_mesh_.empty())
        tpu_job_mesh_ = tpu_job_->job_mesh;
      opened_ms_ = e.ts_ms;
      tpu_session_ = true;
    }
  } else if (e.type == wire::type_name<wire::tpu_trial_row>()) {
    auto row = wire::body_of<wire::tpu_trial_row>(e);
    tpu_runs_[row.trial] = std::move(row);
    tpu_session_ = true;
  } else if (e.type == wire::type_name<wire::tpu_session_end>() && !end_) {
    // The end record holds every run: it stands for the rows before it.
    const auto end = wire::body_of<wire::tpu_session_end>(e);
    tpu_session_ = true;
    if (!end.job_mesh.empty())
      tpu_job_mesh_ = end.job_mesh;
    for (const auto& row : end.trials)
      tpu_runs_[row.trial] = row;
    end_ = wire::session_status{end.state, int(end.trials.size()), end.best_trial, 0, end.text};
  }
}

int session_ledger::tpu_best_run() const { return tpu_fastest_run(tpu_runs_); }

std::optional<wire::tpu_session_end> session_ledger::tpu_progress() const {
  if (!tpu_session_)
    return std::nullopt;
  wire::tpu_session_end out;
  out.state = end_ ? end_->state : session_state::running;
  for (const auto& [index, row] : tpu_runs_)
    out.trials.push_back(row);
  // Once ended, the end record's own choice and words stand.
  out.best_trial = end_ ? end_->best_trial : tpu_best_run();
  out.text = end_ ? end_->text : std::string();
  out.job_mesh = tpu_job_mesh_;
  if (tpu_job_)
    out.job_mesh_verdict = tpu_job_->job_mesh_verdict;
  return out;
}

void session_ledger::on_request(const wire::analysis_request& r) {
  if (r.request >= latest_request_) {
    latest_request_ = r.request;
    last_request_ = r;
  }
}

void session_ledger::on_proposal(const wire::envelope& e) {
  auto p = wire::body_of<wire::proposal>(e);
  proposals_[p.request].push_back(e);
  if (p.request == latest_request_) {
    answered_request_ = std::max(answered_request_, p.request);
    if (p.exhausted)
      exhausted_after_ = results_;
    if (!p.no_pool.empty())
      no_pool_ = p.no_pool;
    if (p.converged)
      converged_ = p.stop_reason;
  }
  if (p.retry_of > 0)
    retried_.insert(p.retry_of);
  if (p.trial <= 0 || p.exhausted)
    return; // an answer that launches nothing
  if (e.seq > 0)
    proposal_seqs_[e.seq] = p.trial;
  used_.insert(p.trial);
  next_trial_ = std::max(next_trial_, p.trial + 1);
  auto& t = trial_entry(p.trial);
  t.proposal_seq = e.seq;
  t.proposal = std::move(p);
}

void session_ledger::on_result(const wire::trial_result& r, uint64_t seq) {
  next_trial_ = std::max(next_trial_, r.trial + 1);
  auto& t = trial_entry(r.trial);
  // A result no proposal asked for is the generator's answer: it refused
  // the trial before launch (the initial configuration, a bad command).
  if (!t.proposal && !t.result)
    answered_request_ = latest_request_;
  t.result_seq = seq;
  if (!t.result)
    ++results_;
  // A trial refused before launch spends none of the budget its proposal
  // reserved.
  if (r.status != trial_status::skipped)
    used_.insert(r.trial);
  else
    used_.erase(r.trial);
  if (!r.pool.empty()) {
    auto& pool = pools_[r.pool];
    if (r.trial >= pool.last_trial) {
      pool.last_trial = r.trial;
      pool.last_end = r.status == trial_status::failed ? r.error_kind : failure_kind::none;
    }
    const bool never_started =
      r.status == trial_status::failed && r.error_kind == failure_kind::launcher_error;
    pool.launch_failures = never_started ? pool.launch_failures + 1 : 0;
    if (never_started)
      pool.last_launch_error = r.error_message;
  }
  const bool measured = r.status == trial_status::succeeded || r.status == trial_status::stopped;
  if (measured && r.tflops_per_gpu > incumbent_.tflops_per_gpu)
    incumbent_ = {r.trial, r.tflops_per_gpu, r.iteration_ms};
  t.result = r;
}

ledger_trial& session_ledger::trial_entry(int number) {
  auto& t = trials_[number];
  t.number = number;
  return t;
}

const wire::envelope* session_ledger::report_for(int number) const {
  const auto it = reports_.find(number);
  return it == reports_.end() ? nullptr : &it->second;
}

std::vector<wire::envelope> session_ledger::proposals_for(int number) const {
  const auto it = proposals_.find(number);
  return it == proposals_.end() ? std::vector<wire::envelope>{} : it->second;
}

std::optional<wire::proposal> session_ledger::proposal_at(uint64_t seq) const {
  if (end_)
    return std::nullopt;
  const auto it = proposal_seqs_.find(seq);
  if (it == proposal_seqs_.end())
    return std::nullopt;
  const auto* t = trial(it->second);
  if (!t || !t->proposal || t->proposal_seq != seq)
    return std::nullopt;
  return t->proposal;
}

const ledger_trial* session_ledger::trial(int number) const {
  const auto it = trials_.find(number);
  return it == trials_.end() ? nullptr : &it->second;
}

std::vector<const ledger_trial*> session_ledger::in_flight() const {
  std::vector<const ledger_trial*> out;
  for (const auto& [_, t] : trials_)
    if (t.in_flight())
      out.push_back(&t);
  return out;
}

std::optional<wire::analysis_report> session_ledger::latest_ranked_report() const {
  for (auto it = reports_.rbegin(); it != reports_.rend(); ++it) {
    auto r = wire::body_of<wire::analysis_report>(it->second);
    if (r.error.empty() && !r.ranked.empty())
      return r;
  }
  return std::nullopt;
}

std::vector<trial_outcome> session_ledger::outcomes() const {
  std::vector<trial_outcome> out;
  for (const auto& [_, t] : trials_) {
    if (!t.result)
      continue;
    const auto& r = *t.result;
    trial_outcome o;
    o.trial = r.trial;
    o.config = wire::from_wire(r.config);
    o.status = r.status;
    o.tflops_per_gpu = r.tflops_per_gpu;
    o.mfu = r.mfu;
    o.peak_memory_mib = r.peak_memory_mib;
    o.memory_limit_mib = r.memory_limit_mib;
    o.gpu_util_pct = r.gpu_util_pct;
    o.reason = r.reason;
    if (!o.ran())
      o.failure = r.error_kind == failure_kind::none ? failure_kind::other : r.error_kind;
    if (const auto& d = t.diagnosis) {
      o.failure = d->kind;
      o.blamed = d->blamed;
      o.confidence = d->confidence;
      o.reason = d->summary;
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<pending_trial> session_ledger::pending() const {
  std::vector<pending_trial> out;
  for (const auto* t : in_flight())
    out.push_back({t->number, wire::from_wire(t->proposal->config)});
  return out;
}

} // namespace paratune
