// The trial protocol between bench_tuning_quality and a search peer
// (bench/tuning_quality/trial_protocol.hpp, optuna_tpe.hpp): message
// parsing, peers that die, answer garbage or go silent (a clear error, no
// hang), refused configurations costing no trial, and Optuna itself.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <set>

#include "bench/tuning_quality/optuna_tpe.hpp"

namespace paratune::bench {
namespace {

using space_map = std::map<std::string, std::vector<std::string>>;

const space_map two_keys = {{"tp", {"1", "2", "4"}}, {"recompute", {"none", "full"}}};

std::string error_of(const peer_message& m) {
  const auto* e = std::get_if<protocol_error>(&m);
  return e ? e->message : "";
}

TEST(trial_protocol, reads_an_ask_with_every_key_of_the_space) {
  const auto m = parse_peer_message(R"({"op":"ask","config":{"tp":"2","recompute":"full"}})",
                                    two_keys);
  const auto* ask = std::get_if<peer_ask>(&m);
  ASSERT_NE(ask, nullptr) << error_of(m);
  EXPECT_EQ(ask->config.at("tp"), "2");
  EXPECT_EQ(ask->config.at("recompute"), "full");
}

TEST(trial_protocol, reads_done) {
  EXPECT_TRUE(std::holds_alternative<peer_done>(parse_peer_message(R"({"op":"done"})", two_keys)));
}

TEST(trial_protocol, names_what_is_wrong_with_a_line) {
  EXPECT_EQ(error_of(parse_peer_message("garbage", two_keys)),
            "peer line 'garbage' is not a JSON object");
  EXPECT_EQ(error_of(parse_peer_message(R"({"config":{}})", two_keys)),
            R"(peer line '{"config":{}}' has no "op")");
  EXPECT_EQ(error_of(parse_peer_message(R"({"op":"tell"})", two_keys)),
            R"(peer line '{"op":"tell"}': unknown op "tell" (expected "ask" or "done"))");
  EXPECT_EQ(error_of(parse_peer_message(R"({"op":"ask"})", two_keys)),
            R"(peer ask '{"op":"ask"}' has no "config" object)");
  EXPECT_EQ(error_of(parse_peer_message(R"({"op":"ask","config":{"tp":"2","vpp":"2","recompute":"full"}})",
                                        two_keys)),
            "peer ask: key 'vpp' is not in the search space");
  EXPECT_EQ(error_of(parse_peer_message(R"({"op":"ask","config":{"tp":"3","recompute":"full"}})",
                                        two_keys)),
            "peer ask: '3' is not a value of 'tp'");
  EXPECT_EQ(error_of(parse_peer_message(R"({"op":"ask","config":{"tp":2,"recompute":"full"}})",
                                        two_keys)),
            "peer ask: the value of 'tp' is not a string");
  EXPECT_EQ(error_of(parse_peer_message(R"({"op":"ask","config":{"tp":"2"}})", two_keys)),
            "peer ask: key 'recompute' is missing");
}

TEST(trial_protocol, writes_start_and_tell_lines) {
  EXPECT_EQ(start_message(two_keys, 20, 7),
            R"({"budget":20,"op":"start","seed":7,"space":{"recompute":["none","full"],"tp":["1","2","4"]}})");
  EXPECT_EQ(tell_message(tell_status::succeeded, 151.5),
            R"({"op":"tell","status":"succeeded","tflops_per_gpu":151.5})");
  EXPECT_EQ(tell_message(tell_status::failed), R"({"op":"tell","status":"failed"})");
  EXPECT_EQ(tell_message(tell_status::refused), R"({"op":"tell","status":"refused"})");
}

/// A small scenario (Qwen2.5-0.5B on 8 A100s: 5,424 valid configurations).
const scenario& small_scenario() {
  static const scenario s =
    load_scenario(std::string(PARATUNE_SOURCE_DIR) + "/bench/scenarios/qwen2.5-0.5b-a100x8.yaml");
  return s;
}

peer_options peer_running(std::vector<std::string> argv) {
  peer_options o;
  o.command = std::move(argv);
  o.first_reply = std::chrono::milliseconds(2000);
  o.reply = std::chrono::milliseconds(2000);
  return o;
}

TEST(trial_protocol, a_peer_that_dies_is_an_error_naming_its_exit) {
  const auto& s = small_scenario();
  const trial_runner runner(s, 0);
  const auto r = run_peer(s, runner, 5, 1, peer_running({"/bin/false"}));
  EXPECT_TRUE(r.log.empty());
  EXPECT_NE(r.error.find("exit status 1"), std::string::npos) << r.error;
}

TEST(trial_protocol, a_peer_that_answers_garbage_is_an_error_quoting_it) {
  const auto& s = small_scenario();
  const trial_runner runner(s, 0);
  const auto r = run_peer(s, runner, 5, 1, peer_running({"/bin/echo", "garbage"}));
  EXPECT_TRUE(r.log.empty());
  EXPECT_EQ(r.error, "peer line 'garbage' is not a JSON object");
}

TEST(trial_protocol, a_silent_peer_times_out_instead_of_hanging) {
  const auto& s = small_scenario();
  const trial_runner runner(s, 0);
  auto opt = peer_running({"/bin/sleep", "30"});
  opt.first_reply = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_peer(s, runner, 5, 1, opt);
  const double s_taken = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.error, "peer /bin/sleep sent no line within 300 ms");
  EXPECT_LT(s_taken, 5.0) << "the silent peer is killed, not waited for";
}

std::string ask_line(const training_config& c, const scenario& s) {
  nlohmann::json j;
  j["op"] = "ask";
  for (const auto& [key, values] : s.context.search)
    j["config"][key] = get_value(c, key);
  return j.dump();
}

TEST(trial_protocol, refused_configurations_cost_no_trial) {
  // A scripted peer: one configuration Megatron's rules refuse, then a
  // valid one, over and over. Only the valid ones run.
  const auto& s = small_scenario();
  training_config refused = s.space.front();
  refused.pp = 1;
  refused.first_pp_layers = 4;  // an uneven split without a pipeline
  ASSERT_FALSE(check_megatron_rules(s.context.model, refused, s.context.world_size).empty());
  const std::string script =
    "import sys\n"
    "sys.stdin.readline()\n"
    "lines = [sys.argv[1], sys.argv[2]]\n"
    "i = 0\n"
    "while True:\n"
    "    print(lines[i % 2], flush=True)\n"
    "    i += 1\n"
    "    if not sys.stdin.readline(): break\n";
  const trial_runner runner(s, 0);
  const auto r = run_peer(s, runner, 4, 1,
                          peer_running({"/usr/bin/python3", "-c", script, ask_line(refused, s),
                                        ask_line(s.space.front(), s)}));
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.log.size(), 4u);
  EXPECT_EQ(r.refused, 4);
  for (const auto& t : r.log)
    EXPECT_EQ(fingerprint(t.outcome.config), fingerprint(s.space.front()));
}

TEST(trial_protocol, optuna_tpe_spends_exactly_the_budget) {
  if (std::system("/usr/bin/python3 -c 'import optuna' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3-optuna is not installed (tools/quickstart installs it)";
  const auto& s = small_scenario();
  const trial_runner runner(s, 0.03);
  const auto r = run_peer(s, runner, 6, 42, optuna_peer(PARATUNE_SOURCE_DIR));
  EXPECT_EQ(r.error, "");
  ASSERT_EQ(r.log.size(), 6u);
  std::set<std::string> distinct;
  for (const auto& t : r.log) {
    EXPECT_GE(s.index_of(t.outcome.config), 0) << "every trial is a valid configuration";
    distinct.insert(fingerprint(t.outcome.config));
  }
  EXPECT_EQ(distinct.size(), 6u) << "a repeat is answered by the peer, not run again";
  // The same seed asks for the same configurations.
  const auto again = run_peer(s, runner, 6, 42, optuna_peer(PARATUNE_SOURCE_DIR));
  ASSERT_EQ(again.log.size(), 6u);
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(fingerprint(again.log[i].outcome.config), fingerprint(r.log[i].outcome.config));
}

} // namespace
} // namespace paratune::bench
