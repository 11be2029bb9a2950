#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "messages/topics.hpp"

#include <gtest/gtest.h>

namespace paratune::wire {
namespace {

template <class T>
T round_trip(const T& body) {
  auto bytes = pack(make_envelope("sess-1", 4, body));
  auto e = decode_envelope(bytes);
  EXPECT_EQ(e.type, type_name<T>());
  EXPECT_EQ(e.session, "sess-1");
  EXPECT_EQ(e.trial, 4);
  EXPECT_EQ(e.v, schema_version);
  EXPECT_GT(e.ts_ms, 1700000000000);
  return body_of<T>(e);
}

TEST(codec, session_opened_round_trips) {
  session_opened s;
  s.job_name = "job"; s.model.name = "llama3-8b"; s.model.layers = 32;
  s.cluster.name = "dgx-a100-80g"; s.cluster.scale_out.gbps = 25;
  s.world_size = 8; s.precision = "fp16"; s.initial = {{"tp", "8"}};
  s.search = {{"mbs", {"1", "2"}}}; s.trials = 20; s.job_yaml = "name: job\n";
  auto r = round_trip(s);
  EXPECT_EQ(r.job_name, "job");
  EXPECT_EQ(r.model.layers, 32);
  EXPECT_DOUBLE_EQ(r.cluster.scale_out.gbps, 25);
  EXPECT_EQ(r.world_size, 8);
  EXPECT_EQ(r.initial.at("tp"), "8");
  EXPECT_EQ(r.search.at("mbs").size(), 2u);
  EXPECT_EQ(r.job_yaml, "name: job\n");
}

TEST(codec, analysis_report_round_trips) {
  analysis_report a;
  a.after_trial = 2; a.health = "MEMORY_BOUND"; a.directive = "RESOLVE_MEMORY_PRESSURE";
  a.ranked.push_back({{{"mbs", "1"}}, "Change MBS from 2 to 1.", candidate_group::standard, "memory", 150, 70000, ""});
  a.rejected.push_back({{{"mbs", "4"}}, "Change MBS from 2 to 4.", candidate_group::standard, "x", 0, 0, "known failure"});
  auto r = round_trip(a);
  EXPECT_EQ(r.health, "MEMORY_BOUND");
  ASSERT_EQ(r.ranked.size(), 1u);
  EXPECT_EQ(r.ranked[0].text, "Change MBS from 2 to 1.");
  EXPECT_EQ(r.rejected[0].rejected, "known failure");
}

TEST(codec, analysis_request_round_trips) {
  EXPECT_EQ(round_trip(analysis_request{3}).after_trial, 3);
}

TEST(codec, proposal_round_trips) {
  proposal p;
  p.trial = 5; p.config = {{"recompute", "none"}}; p.change = "Change AC from full to none.";
  p.group = candidate_group::standard; p.health = "PERFORMANCE_TUNE"; p.why = "headroom";
  p.predicted_tflops = 201.5; p.predicted_peak_mib = 61000; p.reasoning = "...";
  p.ranked = {"a", "b"};
  auto r = round_trip(p);
  EXPECT_EQ(r.change, "Change AC from full to none.");
  EXPECT_DOUBLE_EQ(r.predicted_tflops, 201.5);
  EXPECT_EQ(r.ranked.size(), 2u);
  EXPECT_FALSE(r.exhausted);
}

TEST(codec, trial_started_round_trips) {
  trial_started t;
  t.trial = 2;
  t.config = {{"mbs", "2"}};
  t.argv = {"paratune-sim", "--tensor-model-parallel-size", "2"};
  auto r = round_trip(t);
  EXPECT_EQ(r.argv.size(), 3u);
  EXPECT_EQ(r.argv[2], "2");
}

TEST(codec, telemetry_round_trips) {
  auto r = round_trip(telemetry{2, 7, 5444.9, 239.8});
  EXPECT_EQ(r.iteration, 7);
  EXPECT_DOUBLE_EQ(r.elapsed_ms, 5444.9);
}

TEST(codec, trial_result_round_trips) {
  trial_result t;
  t.trial = 3; t.status = trial_status::failed; t.error_kind = failure_kind::oom;
  t.error_message = "torch.OutOfMemoryError: CUDA out of memory.";
  t.log_tail = {"x", "y"}; t.exit_code = 1; t.memory_limit_mib = 81920;
  auto r = round_trip(t);
  EXPECT_EQ(r.status, trial_status::failed);
  EXPECT_EQ(r.error_kind, failure_kind::oom);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_DOUBLE_EQ(r.memory_limit_mib, 81920);
}

TEST(codec, failure_diagnosis_round_trips) {
  failure_diagnosis f{3, failure_kind::oom, {"mbs"}, 92, false, "MBS 4 caused CUDA OutOfMemoryError (Confidence: 92)"};
  auto r = round_trip(f);
  EXPECT_EQ(r.blamed, std::vector<std::string>{"mbs"});
  EXPECT_EQ(r.confidence, 92);
}

TEST(codec, session_status_round_trips) {
  auto r = round_trip(session_status{session_state::finished, 20, 7, 212.3, "done"});
  EXPECT_EQ(r.state, session_state::finished);
  EXPECT_EQ(r.best_trial, 7);
}

TEST(codec, garbage_and_truncation_raise_decode_error) {
  EXPECT_THROW(decode_envelope("\xc1\xff\x00garbage"), decode_error);
  auto bytes = pack(make_envelope("s", 1, telemetry{1, 1, 1, 1}));
  EXPECT_THROW(decode_envelope(bytes.substr(0, bytes.size() / 2)), decode_error);
  EXPECT_THROW(decode_envelope(""), decode_error);
  EXPECT_THROW(decode_envelope(pack(std::string("just a string"))), decode_error);
}

TEST(codec, future_schema_version_is_refused) {
  auto e = make_envelope("s", 1, telemetry{});
  e.v = schema_version + 1;
  try {
    decode_envelope(pack(e));
    FAIL();
  } catch (const decode_error& err) {
    EXPECT_NE(std::string(err.what()).find("schema version 2"), std::string::npos);
  }
}

TEST(codec, body_of_the_wrong_type_is_refused) {
  auto e = make_envelope("s", 1, telemetry{});
  EXPECT_THROW(body_of<trial_result>(e), decode_error);
}

TEST(topics, are_prefix_filterable) {
  EXPECT_EQ(topics::trial_state("abc", 3), "trial.abc.3.state");
  EXPECT_EQ(topics::trial_state("abc", 3).rfind(topics::trial_prefix("abc"), 0), 0u);
  EXPECT_EQ(topics::telemetry("abc", 12), "telemetry.abc.12");
  EXPECT_EQ(topics::proposal("abc"), "proposal.abc");
}

} // namespace
TEST(codec, paratune_errors_render_as_words) {
  EXPECT_EQ(describe(caf::make_error(ec::storage_failure, "cannot open message pool at /p")),
            "storage failure: cannot open message pool at /p");
  EXPECT_EQ(describe(caf::make_error(ec::bus_failure)), "bus failure");
  EXPECT_EQ(describe(caf::error{}), "no error");
}

/// A body whose status is a word this build does not know.
struct odd_status {
  std::string status = "exploded";
  MSGPACK_DEFINE_MAP(status)
};

TEST(codec, an_unknown_enum_word_fails_the_body_not_the_program) {
  envelope e;
  e.type = type_name<trial_result>();
  e.body = pack(odd_status{});
  try {
    body_of<trial_result>(e);
    FAIL() << "decoded an unknown status";
  } catch (const decode_error& err) {
    EXPECT_NE(std::string(err.what()).find("unknown value 'exploded'"), std::string::npos)
      << err.what();
  }
}

// fuzz/bus_envelope.cpp found this: a map header claiming 2^31 entries in
// five bytes made msgpack allocate 32 GiB before reading any entry.
TEST(codec, a_length_beyond_the_payload_is_refused_before_allocating) {
  const std::string huge_map("\xdf\x1a\xdf\x7a\x23", 5);
  EXPECT_THROW(decode_envelope(huge_map), decode_error);
  const std::string huge_array("\xdd\x7f\xff\xff\xff\x01", 6);
  EXPECT_THROW(decode_envelope(huge_array), decode_error);
  envelope e = make_envelope("s", 1, telemetry{});
  e.body = huge_map;
  EXPECT_THROW(body_of<telemetry>(e), decode_error);
}

TEST(codec, nesting_deeper_than_any_body_is_refused) {
  const std::string deep(1000, '\x91');  // [[[[...
  EXPECT_THROW(decode_envelope(deep), decode_error);
}

} // namespace paratune::wire
