// paratune-relay and its receiver over a real ZeroMQ bus: a real relay
// process wraps a command (printf, exec'd without a shell) and is told to
// leave some lines unpublished (--drop-seq); the receiver still delivers
// every line in order, exactly once, from the relay's buffer while it runs
// and from its log file once it has exited.

#include <algorithm>
#include <filesystem>
#include <functional>
#include <atomic>
#include <csignal>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>
#include <msgpack.hpp>
#include <zmq.hpp>

#include "adapters/bus/zmq_bus.hpp"
#include "adapters/process/child_process.hpp"
#include "adapters/relay/relay_auth.hpp"
#include "adapters/relay/relay_ingress.hpp"
#include "adapters/relay/relay_log.hpp"
#include "adapters/relay/relay_receiver.hpp"
#include "adapters/relay/relay_wire.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;
using lines = std::vector<std::string>;

lines numbered(int n) {
  lines out;
  for (int i = 1; i <= n; ++i)
    out.push_back("line " + std::to_string(i));
  return out;
}

struct relay_test : ::testing::Test {
  void SetUp() override {
    relay = test::bin_dir() + "/paratune-relay";
    if (!fs::exists(relay))
      GTEST_SKIP() << relay << " is not built";
    dir = test::make_temp_dir("relay");
    log = dir + "/relay.log";
    proxy = std::make_unique<bus_proxy>(ctx, bus_endpoints{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"});
  }
  void TearDown() override {
    receiver.reset();
    proxy.reset();
    if (!dir.empty())
      fs::remove_all(dir);
  }

  void receive(std::chrono::milliseconds fetch_timeout = std::chrono::milliseconds(500)) {
    relay_receiver_options o{proxy->bound().subscribe, relay_topic("s1", 1), log, fetch_timeout, {}};
    receiver = std::make_unique<relay_receiver>(o, [this](const std::string& line) {
      std::lock_guard lock(mutex);
      got.push_back(line);
    });
  }

  /// Runs the relay over `/usr/bin/printf "line %s\n" 1 .. n` to its end.
  test::program_result run_relay(int n, const lines& options) {
    lines argv{relay, "--bus", proxy->bound().publish, "--session", "s1", "--trial", "1",
               "--log", log};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", "/usr/bin/printf", "line %s\n"});
    for (int i = 1; i <= n; ++i)
      argv.push_back(std::to_string(i));
    return test::run_program(argv);
  }

  lines received() {
    std::lock_guard lock(mutex);
    return got;
  }

  std::string relay, dir, log;
  zmq::context_t ctx;
  std::unique_ptr<bus_proxy> proxy;
  std::unique_ptr<relay_receiver> receiver;
  std::mutex mutex;
  lines got;
};

TEST_F(relay_test, two_gaps_are_filled_from_the_relays_buffer) {
  receive();
  // The relay waits for the receiver's subscription, publishes 8 lines but
  // 3 and 5, and serves re-sends for 3 s after its end.
  const auto r = run_relay(8, {"--drop-seq", "3,5", "--linger-ms", "3000"});
  EXPECT_EQ(r.status, 0) << r.err;
  receiver->finish(std::chrono::seconds(5));
  EXPECT_EQ(received(), numbered(8));
  const auto c = receiver->counts();
  EXPECT_EQ(c.delivered, 8u);
  EXPECT_EQ(c.gaps, 2u);
  EXPECT_EQ(c.from_relay, 2u);
  EXPECT_EQ(c.from_log, 0u);
  EXPECT_EQ(c.lost, 0u);
  EXPECT_EQ(c.bad, 0u);
  // The log file holds every line, the unpublished ones too.
  const auto logged = read_relay_log(log, 1, 100, 100, max_relay_line);
  ASSERT_TRUE(logged);
  ASSERT_EQ(logged->size(), 8u);
  EXPECT_EQ((*logged)[2], (std::pair<uint64_t, std::string>{3, "line 3"}));
}

TEST_F(relay_test, a_lost_tail_is_read_from_the_log_once_the_relay_has_exited) {
  receive(std::chrono::milliseconds(200));
  // Lines 7 and 8 are never published and the relay leaves at its end
  // (--linger-ms 0): the end message reveals them, the fetch goes
  // unanswered, and the log file has them.
  const auto r = run_relay(8, {"--drop-seq", "7,8", "--linger-ms", "0"});
  EXPECT_EQ(r.status, 0) << r.err;
  receiver->finish(std::chrono::seconds(5));
  EXPECT_EQ(received(), numbered(8));
  const auto c = receiver->counts();
  EXPECT_EQ(c.from_log, 2u);
  EXPECT_EQ(c.from_relay, 0u);
  EXPECT_EQ(c.lost, 0u);
}

TEST_F(relay_test, a_receiver_that_heard_nothing_takes_every_line_from_the_log) {
  const auto r = run_relay(5, {"--await-ms", "0", "--linger-ms", "0"});
  EXPECT_EQ(r.status, 0) << r.err;
  receive(std::chrono::milliseconds(100));
  receiver->finish(std::chrono::milliseconds(200));
  EXPECT_EQ(received(), numbered(5));
  EXPECT_EQ(receiver->counts().from_log, 5u);
}

TEST_F(relay_test, a_followed_file_is_relayed_while_the_command_beside_it_runs) {
  receive();
  // The command writes a training log (its path is $0 of the script: no
  // quoting) and prints a line of its own, which goes to the relay's stderr.
  const auto train_log = dir + "/train.log";
  const auto r = test::run_program(
      {relay, "--bus", proxy->bound().publish, "--session", "s1", "--trial", "1", "--log", log,
       "--follow", train_log, "--linger-ms", "0", "--", "/bin/sh", "-c",
       "printf 'iteration 1\niteration 2\n' > \"$0\"; echo to-stderr; printf 'last' >> \"$0\"",
       train_log});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("to-stderr"), std::string::npos) << r.err;
  receiver->finish(std::chrono::seconds(5));
  // The last line has no newline: it is relayed once the command ended.
  EXPECT_EQ(received(), (lines{"iteration 1", "iteration 2", "last"}));
  EXPECT_EQ(receiver->counts().lost, 0u);
}

// scancel ends a job with SIGTERM: the relay passes it to the command and
// still publishes its end, with the command's status (143).
TEST_F(relay_test, a_sigterm_is_passed_to_the_command_and_the_end_still_published) {
  receive();
  std::atomic<int> status{-1};
  child_process relay_process(
      {relay, "--bus", proxy->bound().publish, "--session", "s1", "--trial", "1", "--log", log,
       "--linger-ms", "0", "--", "/bin/sh", "-c", "echo started; exec sleep 30"},
      {}, [&](int s) { status = s; });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (received().empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(received(), lines{"started"});
  ::kill(relay_process.pid(), SIGTERM);
  while (status < 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(status, 143);
  receiver->finish(std::chrono::seconds(5));
  EXPECT_TRUE(receiver->counts().ended);
  EXPECT_EQ(receiver->counts().from_log, 0u);
}

TEST_F(relay_test, the_commands_exit_status_is_the_relays) {
  const auto r = test::run_program({relay, "--bus", proxy->bound().publish, "--session", "s1",
                                    "--trial", "1", "--log", log, "--await-ms", "0",
                                    "--linger-ms", "0", "--", "/bin/sh", "-c", "echo bye; exit 3"});
  EXPECT_EQ(r.status, 3) << r.err;
  const auto logged = read_relay_log(log, 1, 10, 10, max_relay_line);
  ASSERT_TRUE(logged);
  EXPECT_EQ(*logged, (std::vector<std::pair<uint64_t, std::string>>{{1, "bye"}}));
}

TEST_F(relay_test, bad_options_exit_2_with_one_line_naming_the_option) {
  const lines base{relay, "--bus", "tcp://127.0.0.1:5555", "--session", "s1", "--trial", "1",
                   "--log", log};
  auto run = [&](lines extra, const lines& tail) {
    lines argv = base;
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.insert(argv.end(), tail.begin(), tail.end());
    return test::run_program(argv);
  };
  const std::vector<std::pair<lines, std::string>> refused{
    {{}, "--: missing"},
    {{"--trial", "0"}, "--trial"},
    {{"--bus", "tcp://127.0.0.1:70000"}, "--bus port"},
    {{"--bus", "udp://x:1"}, "--bus"},
    {{"--fetch-bind", "tcp://*:0x10"}, "--fetch-bind port"},
    {{"--session", "a;b"}, "--session"},
    {{"--drop-seq", "3,-1"}, "--drop-seq"},
    {{"--linger-ms", "600001"}, "--linger-ms"},
    {{"--frobnicate", "1"}, "--frobnicate: unknown option"},
    {{"--log"}, "--log: needs a value"},
  };
  for (const auto& [extra, named] : refused) {
    const auto r = run(extra, extra.empty() ? lines{} : lines{"--", "/bin/true"});
    EXPECT_EQ(r.status, 2) << named << ": " << r.err;
    EXPECT_NE(r.err.find("paratune-relay: " + named), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

std::string packed_map(const std::function<void(msgpack::packer<msgpack::sbuffer>&)>& fill,
                       uint32_t fields) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(fields);
  fill(pk);
  return {buf.data(), buf.size()};
}

TEST_F(relay_test, hostile_messages_are_counted_and_dropped) {
  receive();
  const std::string fetch = "tcp://127.0.0.1:1";
  receiver->take("not msgpack at all");
  receiver->take(std::string("\xdf\xff\xff\xff\xff", 5));  // a map claiming 4 billion entries
  receiver->take(packed_map([](auto& pk) { pk.pack("kind"); pk.pack("line"); pk.pack("seq");
                                           pk.pack(-5); pk.pack("line"); pk.pack("x"); }, 3));
  receiver->take(encode(relay_message{relay_kind::line, 0, "zero", 0, fetch}));
  receiver->take(packed_map([](auto& pk) { pk.pack("kind"); pk.pack("line"); pk.pack("seq");
                                           pk.pack(1); pk.pack("line");
                                           pk.pack(std::string(max_relay_line + 1, 'x')); }, 3));
  receiver->take(packed_map([](auto& pk) { pk.pack("kind"); pk.pack("line"); pk.pack("seq");
                                           pk.pack(1); pk.pack("fetch"); pk.pack("ipc:///x"); }, 3));
  receiver->take(encode(relay_message{relay_kind::line, 1, "fine", 0, fetch}) + "trailing");
  EXPECT_EQ(receiver->counts().bad, 7u);
  // A huge number decodes but is refused: nothing is held for it.
  receiver->take(encode(relay_message{relay_kind::line, UINT64_MAX, "huge", 0, fetch}));
  receiver->take(encode(relay_message{relay_kind::end, UINT64_MAX, {}, 0, fetch}));
  const auto c = receiver->counts();
  EXPECT_EQ(c.refused, 1u);
  EXPECT_EQ(c.bad, 8u);  // the end past every bound contradicts the sequence
  EXPECT_EQ(c.delivered, 0u);
  receiver->take(encode(relay_message{relay_kind::line, 1, "first", 0, fetch}));
  EXPECT_EQ(received(), lines{"first"});
}

/// A relay behind the relay ingress, with `env` (NAME=VALUE) in its
/// environment, running a shell line that reports whether the key reached it.
test::program_result run_keyed_relay(const std::string& relay, const std::string& bus,
                                     const std::string& log, const std::string& env) {
  return test::run_program({"/usr/bin/env", "-u", relay_key_env, env, relay, "--bus", bus,
                            "--session", "s1", "--trial", "1", "--log", log, "--linger-ms",
                            "3000", "--", "/bin/sh", "-c",
                            "echo key=${PARATUNE_RELAY_KEY:-none}; echo done"});
}

std::string outcome_line(const std::string& outcome, int n) {
  return "paratune_relay_ingress_messages_total{outcome=\"" + outcome + "\"} "
         + std::to_string(n) + "\n";
}

TEST_F(relay_test, a_keyed_relay_is_heard_through_the_ingress_and_its_command_never_sees_the_key) {
  const auto master = random_relay_key();
  relay_ingress ingress(ctx, "tcp://127.0.0.1:*", proxy->bound().publish, master);
  receive();
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // subscriptions reach the ingress
  const auto key = to_hex(relay_trial_key(master, "s1", 1));
  const auto r = run_keyed_relay(relay, ingress.bound(), log, std::string(relay_key_env) + "=" + key);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");  // no word of unsigned lines
  receiver->finish(std::chrono::seconds(5));
  EXPECT_EQ(received(), (lines{"key=none", "done"}));
  const auto metrics = ingress.prometheus();
  EXPECT_NE(metrics.find(outcome_line("unauthenticated", 0)), std::string::npos) << metrics;
  EXPECT_EQ(metrics.find(outcome_line("passed", 0)), std::string::npos) << metrics;
  // Lines come from the bus or the relay's buffer, never from its log: the ingress passed them.
  EXPECT_EQ(receiver->counts().from_log, 0u);
}

TEST_F(relay_test, an_unkeyed_relays_lines_are_refused_by_the_ingress_and_read_from_its_log) {
  relay_ingress ingress(ctx, "tcp://127.0.0.1:*", proxy->bound().publish, random_relay_key());
  receive(std::chrono::milliseconds(200));
  const auto r = run_keyed_relay(relay, ingress.bound(), log, "NOTHING=1");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("no PARATUNE_RELAY_KEY in the environment: lines go out unsigned"),
            std::string::npos)
    << r.err;
  receiver->finish(std::chrono::seconds(1));
  EXPECT_EQ(received(), (lines{"key=none", "done"}));
  EXPECT_EQ(receiver->counts().from_log, 2u);
  const auto metrics = ingress.prometheus();
  EXPECT_NE(metrics.find(outcome_line("passed", 0)), std::string::npos) << metrics;
  EXPECT_NE(metrics.find(outcome_line("unauthenticated", 3)), std::string::npos) << metrics;
}

TEST_F(relay_test, a_key_that_is_not_64_hex_digits_stops_the_relay_before_its_command) {
  const auto r = run_keyed_relay(relay, proxy->bound().publish, log,
                                 std::string(relay_key_env) + "=not-a-key");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "paratune-relay: PARATUNE_RELAY_KEY: expected 64 hex digits (the trial's key, "
                   "which paratune puts in the job's environment)\n");
  EXPECT_FALSE(fs::exists(log));
}

TEST(relay_wire, messages_survive_a_round_trip) {
  const relay_message line{relay_kind::line, 42, "iteration 1/10 | x", 0, "tcp://node7:4000"};
  const auto l = decode_relay_message(encode(line));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->kind, relay_kind::line);
  EXPECT_EQ(l->seq, 42u);
  EXPECT_EQ(l->line, "iteration 1/10 | x");
  EXPECT_EQ(l->fetch, "tcp://node7:4000");
  const auto e = decode_relay_message(encode(relay_message{relay_kind::end, 9, {}, 143, ""}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, relay_kind::end);
  EXPECT_EQ(e->seq, 9u);
  EXPECT_EQ(e->exit_code, 143);
  const auto req = decode_fetch_request(encode(fetch_request{3, 5}));
  ASSERT_TRUE(req);
  EXPECT_EQ(req->first, 3u);
  EXPECT_EQ(req->last, 5u);
  EXPECT_FALSE(decode_fetch_request(encode(fetch_request{5, 3})));
  EXPECT_FALSE(decode_fetch_request(encode(fetch_request{0, 3})));
  const auto rep = decode_fetch_reply(encode(fetch_reply{{{3, "c"}, {5, "e"}}, 8}));
  ASSERT_TRUE(rep);
  EXPECT_EQ(rep->lines, (std::vector<std::pair<uint64_t, std::string>>{{3, "c"}, {5, "e"}}));
  EXPECT_EQ(rep->last_seq, 8u);
  EXPECT_FALSE(decode_fetch_reply(encode(fetch_reply{{{0, "zero"}}, 8})));
  EXPECT_EQ(relay_topic("s-1", 12), "relay.s-1.12");
}

} // namespace
} // namespace paratune
