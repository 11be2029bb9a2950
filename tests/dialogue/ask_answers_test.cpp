// `ask` answers the question asked (issue 27, part 7), from records written
// as the agents write them: "why this proposal first?" is about the most
// recent trial that ran, a failure's answer says what happened next and
// gives its diagnosis once, and a follow-up never repeats an answer.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dialogue/dialogue.hpp"
#include "messages/codec.hpp"
#include "tests/e2e/small_session.hpp"

namespace paratune {
namespace {

const std::string session_id = "ask-answers";

/// A session's records in pool order, each with its sequence number.
struct records {
  std::vector<wire::envelope> history;

  template <class T>
  void add(int trial, const T& body) {
    auto e = wire::make_envelope(session_id, trial, body);
    e.seq = history.size() + 1;
    history.push_back(std::move(e));
  }
  session_facts facts() const { return facts_of(session_id, history); }
};

wire::trial_result succeeded(int trial, const wire::config_map& c, double tflops,
                             int retry_of = 0) {
  wire::trial_result r;
  r.trial = trial;
  r.config = c;
  r.status = trial_status::succeeded;
  r.tflops_per_gpu = tflops;
  r.mfu = tflops / 312;
  r.peak_memory_mib = 60000;
  r.retry_of = retry_of;
  return r;
}

wire::trial_result failed(int trial, const wire::config_map& c, failure_kind kind,
                          const std::string& reason) {
  wire::trial_result r;
  r.trial = trial;
  r.config = c;
  r.status = trial_status::failed;
  r.error_kind = kind;
  r.reason = reason;
  return r;
}

wire::suggestion_wire suggestion(const wire::config_map& c, const std::string& text,
                                 double predicted) {
  wire::suggestion_wire s;
  s.config = c;
  s.text = text;
  s.why = "the reason for " + text;
  s.predicted_tflops = predicted;
  return s;
}

wire::proposal proposal_of(int trial, const wire::config_map& c, const std::string& change,
                           const std::string& why, double predicted, int request,
                           int retry_of = 0) {
  wire::proposal p;
  p.trial = trial;
  p.config = c;
  p.change = change;
  p.why = why;
  p.predicted_tflops = predicted;
  p.request = request;
  p.retry_of = retry_of;
  return p;
}

wire::analysis_report report_of(int request, int after, int base,
                                std::vector<wire::suggestion_wire> ranked) {
  wire::analysis_report r;
  r.request = request;
  r.after_trial = after;
  r.base_trial = base;
  r.health = "COMPUTE_BOUND";
  r.ranked = std::move(ranked);
  return r;
}

std::string ask(const session_facts& f, const std::string& question, int thread = 0) {
  return answer_question(f, question, thread, {}, "", {}).turn.answer;
}

std::size_t occurrences(const std::string& text, const std::string& piece) {
  std::size_t n = 0;
  for (auto at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1))
    ++n;
  return n;
}

struct ask_answers : ::testing::Test {
  void SetUp() override {
    opened = test::small_session(8);
    opened.initial["tp"] = "2";
    opened.initial["mbs"] = "1";
    tp4 = opened.initial;
    tp4["tp"] = "4";
    mbs2 = tp4;
    mbs2["mbs"] = "2";
    r.add(0, opened);
    r.add(1, succeeded(1, opened.initial, 150));
    r.add(0, wire::analysis_request{1, 1, 1});
    r.add(0, report_of(1, 1, 1, {suggestion(tp4, "Change TP from 2 to 4", 170),
                                 suggestion(mbs2, "Change TP to 4 and MBS to 2", 160)}));
    r.add(2, proposal_of(2, tp4, "Change TP from 2 to 4.", "TP 4 halves the weights per GPU",
                         170, 1));
  }

  wire::session_opened opened;
  wire::config_map tp4, mbs2;
  records r;
};

// Trial 2 ran; after it an analysis proposed trial 3, which never ran. The
// question is about trial 2, and trial 3's proposal is named as not run.
TEST_F(ask_answers, why_first_is_about_the_most_recent_trial_that_ran) {
  r.add(2, succeeded(2, tp4, 165));
  r.add(0, wire::analysis_request{2, 2, 1});
  r.add(0, report_of(2, 2, 2, {suggestion(mbs2, "Change MBS from 1 to 2", 175)}));
  r.add(3, proposal_of(3, mbs2, "Change MBS from 1 to 2.", "memory headroom", 175, 2));
  const auto text = ask(r.facts(), "Why this proposal first?");
  EXPECT_EQ(text.rfind("The most recent trial that ran is trial 2 (", 0), 0u) << text;
  EXPECT_NE(text.find("It was chosen as \"Change TP from 2 to 4\" because TP 4 halves the "
                      "weights per GPU, expected at 170.0 TFLOP/s/GPU."),
            std::string::npos) << text;
  EXPECT_NE(text.find("The analysis after trial 1 ranked it 1 of 2, moving from trial 1 with "
                      "health COMPUTE_BOUND."),
            std::string::npos) << text;
  EXPECT_NE(text.find("It measured 165.0 TFLOP/s/GPU, 2.9% below the prediction."),
            std::string::npos) << text;
  EXPECT_NE(text.find("After it, the analysis after trial 2 proposed Change MBS from 1 to 2; "
                      "that has not run."),
            std::string::npos) << text;
  // The old answer explained the proposal that never ran.
  EXPECT_EQ(text.find("Its first proposal: Change MBS"), std::string::npos) << text;
  EXPECT_EQ(text.find("the reason for Change MBS"), std::string::npos) << text;
}

// Trial 2 failed with an NCCL timeout, the analyst diagnosed it and trial 3
// ran it again: the answer says the retry succeeded and states the failure once.
TEST_F(ask_answers, a_failure_answer_says_what_happened_next_and_diagnoses_once) {
  r.add(2, failed(2, tp4, failure_kind::nccl_timeout, "NCCL watchdog timeout after 600 s"));
  wire::failure_diagnosis d;
  d.trial = 2;
  d.kind = failure_kind::nccl_timeout;
  d.retry = true;
  d.confidence = 80;
  d.summary = "NCCL watchdog timeout after 600 s: a transient fault, not the configuration "
              "(Confidence: 80)";
  r.add(2, d);
  r.add(3, proposal_of(3, tp4, "Retry trial 2.", "a transient fault", 170, 2, 2));
  r.add(3, succeeded(3, tp4, 166, 2));
  const auto text = ask(r.facts(), "Why did trial 2 fail?");
  EXPECT_NE(text.find("It failed; the failure analysis says: NCCL watchdog timeout after 600 "
                      "s: a transient fault, not the configuration (Confidence: 80)."),
            std::string::npos) << text;
  EXPECT_EQ(occurrences(text, "NCCL watchdog timeout"), 1u) << text;
  EXPECT_NE(text.find("Trial 3 ran it again and succeeded: 166.0 TFLOP/s/GPU."),
            std::string::npos) << text;
}

TEST_F(ask_answers, a_failure_not_retried_says_so_and_names_the_next_trial) {
  r.add(2, failed(2, tp4, failure_kind::oom, "CUDA out of memory"));
  r.add(3, succeeded(3, mbs2, 158));
  const auto text = ask(r.facts(), "Why did trial 2 fail?");
  EXPECT_NE(text.find("It failed: CUDA out of memory."), std::string::npos) << text;
  EXPECT_NE(text.find("It was not retried; the next trial, 3 ("), std::string::npos) << text;
  EXPECT_NE(text.find("), measured 158.0 TFLOP/s/GPU."), std::string::npos) << text;
}

// The same question again in a thread: nothing new, said in one line, never
// the previous answer word for word.
TEST_F(ask_answers, a_follow_up_never_repeats_an_answer_verbatim) {
  r.add(2, succeeded(2, tp4, 165));
  const auto first = answer_question(r.facts(), "Which configuration is best?", 0, {}, "", {});
  r.add(0, first.turn);
  const auto again = answer_question(r.facts(), "which is best?", first.turn.thread, {}, "", {});
  EXPECT_NE(again.turn.answer, first.turn.answer);
  EXPECT_EQ(again.turn.answer, "Nothing new since my answer in turn 1: the session's records "
                               "hold nothing more on this.");
  // What is new is given after what was said; a new thread answers in full.
  r.add(0, again.turn);
  r.add(3, succeeded(3, mbs2, 171));
  const auto later = answer_question(r.facts(), "which is best?", first.turn.thread, {}, "", {});
  EXPECT_NE(later.turn.answer.find("trial 3"), std::string::npos) << later.turn.answer;
  EXPECT_NE(later.turn.answer, first.turn.answer);
  const auto fresh = answer_question(r.facts(), "which is best?", 0, {}, "", {});
  EXPECT_EQ(fresh.turn.answer.rfind("The best configuration is trial 3 (", 0), 0u)
    << fresh.turn.answer;
}

// Issue 45, part 6: "why did you never try ...?" names the analysis that
// ranked a candidate holding the values, by the trial it launched, with the
// prediction and risk of running out of memory its record holds.
TEST_F(ask_answers, why_never_names_the_analysis_that_ranked_it_and_its_oom_risk) {
  auto ranked = report_of(1, 1, 1, {suggestion(tp4, "Change TP from 2 to 4", 170),
                                    suggestion(mbs2, "Change TP to 4 and MBS to 2", 160)});
  ranked.ranked[1].predicted_peak_mib = 89722;
  ranked.ranked[1].oom_risk = 0.94;
  records with_risk;
  with_risk.add(0, opened);
  with_risk.add(1, succeeded(1, opened.initial, 150));
  with_risk.add(0, wire::analysis_request{1, 1, 1});
  with_risk.add(0, ranked);
  with_risk.add(2, proposal_of(2, tp4, "Change TP from 2 to 4.", "TP 4 halves the weights", 170,
                               1));
  with_risk.add(2, succeeded(2, tp4, 165));
  EXPECT_EQ(ask(with_risk.facts(), "why did you never try mbs 2?"),
            "No trial held mbs=2. Trial 2's analysis ranked mbs=2 as candidate 2 of 2 (Change TP "
            "to 4 and MBS to 2), expected at 160.0 TFLOP/s/GPU with a predicted peak of 89722 "
            "MiB and a 94% risk of running out of memory. It launched trial 2 (its candidate 1) "
            "instead.");
  // "are you sure?" after it: nothing held mbs=2, so the error over every
  // measured trial that had a prediction (trial 2: 165 against 170).
  const auto first = answer_question(with_risk.facts(), "why did you never try mbs 2?", 0, {}, "",
                                     {});
  with_risk.add(0, first.turn);
  EXPECT_EQ(answer_question(with_risk.facts(), "are you sure?", first.turn.thread, {}, "", {})
              .turn.answer,
            "No measured trial held mbs=2, so no run checks a prediction for it. Over 1 measured "
            "trial, the predictions were off by 2.9% on average; the worst was trial 2: "
            "predicted 170.0, measured 165.0 TFLOP/s/GPU. The best configuration's 165.0 "
            "TFLOP/s/GPU was measured (trial 2), not predicted.");
}

TEST_F(ask_answers, why_was_a_trial_stopped_gives_the_stops_own_reason) {
  auto stopped = succeeded(2, tp4, 120);
  stopped.status = trial_status::stopped;
  stopped.stop = stop_reason::cannot_beat_incumbent;
  stopped.reason = "cannot beat trial 1: at best 131.0 TFLOP/s/GPU against 150.0";
  stopped.iterations_scored = 4;
  r.add(2, stopped);
  EXPECT_EQ(ask(r.facts(), "Why was trial 2 stopped?"),
            "Trial 2 (tp=4) was stopped because it could no longer beat the best run; its record "
            "says: cannot beat trial 1: at best 131.0 TFLOP/s/GPU against 150.0. By then it had "
            "measured 120.0 TFLOP/s/GPU over 4 scored iterations (MFU 38.5%, peak memory 60000 "
            "MiB), the figure the session scores it by.");
  EXPECT_EQ(ask(r.facts(), "why was trial 1 stopped?"),
            "Trial 1 was not stopped: it succeeded, running to its end at 150.0 TFLOP/s/GPU.");
}

TEST_F(ask_answers, which_of_two_trials_compares_them_and_applies_the_tie_rule) {
  auto t2 = succeeded(2, tp4, 149.2);
  t2.peak_memory_mib = 48000;
  t2.memory_limit_mib = 81920;
  r.add(2, t2);
  const auto text = ask(r.facts(), "which should I use, trial 1 or 2?");
  EXPECT_EQ(text,
            "Trial 1 (tp=2) measured 150.0 TFLOP/s/GPU with a peak of 60000 MiB. Trial 2 (tp=4) "
            "measured 149.2 TFLOP/s/GPU with a peak of 48000 MiB. They differ in tp (2 in trial "
            "1, 4 in trial 2). Trial 1 measured 0.5% above trial 2 and peaked 12000 MiB higher. "
            "Trials 1 and 2 measured within noise of each other (150.0 vs 149.2 TFLOP/s/GPU, "
            "within 1%); trial 2 is chosen for 11.7 GiB more memory headroom than trial 1, the "
            "highest measurement. Use trial 2.");
  EXPECT_EQ(ask(r.facts(), "trial 1 vs trial 7?"), "The session has no trial 7: it has 2 trials.");
}

wire::tpu_trial_row tpu_run(int trial, const std::string& mesh, double step_ms) {
  wire::tpu_trial_row t;
  t.trial = trial;
  t.mesh = mesh;
  t.step_time_ms = step_ms;
  t.pool = "v6e";
  t.started_ms = 1000 * trial;
  t.ended_ms = 1000 * trial + 500;
  return t;
}

// A TPU session's questions are answered from its runs: the fastest mesh,
// one run, the failures; a question about the GPU search gets the overview.
TEST(ask_tpu, answers_from_the_runs_of_a_tpu_session) {
  records r;
  wire::tpu_session_opened job;
  job.experiment_name = "v6e-16-hbm";
  job.model = "llama3-8b";
  job.hardware = "tpu-v6e 4x4";
  job.budget = 4;
  job.job_mesh = "data=4,model=4";
  r.add(0, job);
  auto own = tpu_run(1, "data=4,model=4", 812.5);
  own.job_mesh = true;
  r.add(0, own);
  auto oom = tpu_run(2, "data=16", 0);
  oom.error = "out of memory: RESOURCE_EXHAUSTED";
  r.add(0, oom);
  auto fast = tpu_run(3, "fsdp=16", 650);
  fast.bottleneck = "HBM-bound: weights gathered every layer";
  fast.next = "model=2";
  r.add(0, fast);
  auto running = tpu_run(4, "fsdp=8,model=2", 0);
  running.ended_ms = 0;
  r.add(0, running);
  auto lost = tpu_run(5, "data=2,fsdp=8", 0);
  lost.error = "a host was lost (DEADLINE_EXCEEDED: Barrier timed out)";
  r.add(0, lost);
  auto again = tpu_run(6, "data=2,fsdp=8", 700);
  again.retry_of = 5;
  r.add(0, again);
  const auto f = r.facts();
  ASSERT_TRUE(f.is_tpu());
  const auto ask = [&](const std::string& q) {
    return answer_question(f, q, 0, {}, "", {}).turn.answer;
  };
  EXPECT_EQ(ask("which mesh is best?"),
            "The fastest mesh is trial 3 (mesh fsdp=16) at 650.0 ms per step. That is x1.25 "
            "over the job's own mesh, trial 1 (mesh data=4,model=4) at 812.5 ms per step.");
  EXPECT_EQ(ask("what happened in trial 3?"),
            "Trial 3 ran mesh fsdp=16 on pool v6e. It measured 650.0 ms per step. Its diagnosis: "
            "HBM-bound: weights gathered every layer. What came next: model=2.");
  EXPECT_EQ(ask("what failed?"),
            "2 of 6 runs failed. Trial 2 (mesh data=16): out of memory: RESOURCE_EXHAUSTED. "
            "Trial 5 (mesh data=2,fsdp=8): a host was lost (DEADLINE_EXCEEDED: Barrier timed "
            "out).");
  EXPECT_EQ(ask("why did trial 5 fail?"),
            "Trial 5 ran mesh data=2,fsdp=8 on pool v6e. It failed: a host was lost "
            "(DEADLINE_EXCEEDED: Barrier timed out). Trial 6 ran its mesh again and measured "
            "700.0 ms per step.");
  EXPECT_EQ(ask("what happened in trial 4?"),
            "Trial 4 ran mesh fsdp=8,model=2 on pool v6e. It is still running.");
  EXPECT_EQ(ask("trial 9?"), "The session has no trial 9: it has 6 runs.");
  const auto overview = ask("why not mbs 4?");
  EXPECT_EQ(overview.rfind("TPU session ask-answers (v6e-16-hbm, llama3-8b on tpu-v6e 4x4) is "
                           "running: 6 runs of a budget of 4. The fastest mesh is trial 3",
                           0),
            0u)
    << overview;
}

TEST(ask_follow_up, keeps_only_the_sentences_not_said_before) {
  wire::dialogue_turn before;
  before.turn = 2;
  before.answer = "Trial 2 ran tp=4. It measured 165.0 TFLOP/s/GPU.";
  EXPECT_EQ(without_repeats("Trial 2 ran tp=4. It measured 165.0 TFLOP/s/GPU. Trial 3 beat it.",
                            {before}),
            "Beyond my answer in turn 2: Trial 3 beat it.");
  EXPECT_EQ(without_repeats("Trial 2 ran tp=4.", {before}),
            "Nothing new since my answer in turn 2: the session's records hold nothing more "
            "on this.");
  EXPECT_EQ(without_repeats("Something else.", {before}), "Something else.");
  EXPECT_EQ(without_repeats("Trial 2 ran tp=4.", {}), "Trial 2 ran tp=4.");
  EXPECT_EQ(answer_sentences("At 236.5 TFLOP/s. Why? Because."),
            (std::vector<std::string>{"At 236.5 TFLOP/s.", "Why?", "Because."}));
}

} // namespace
} // namespace paratune
