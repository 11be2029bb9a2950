// The relay ingress over real ZeroMQ sockets: publishers on TCP (as relays
// on cluster nodes are) send to it, and a subscriber on the agents' bus
// behind it sees only relay lines signed with their own trial's key.

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <zmq.hpp>

#include "adapters/bus/zmq_bus.hpp"
#include "adapters/relay/relay_auth.hpp"
#include "adapters/relay/relay_ingress.hpp"

namespace paratune {
namespace {

using namespace std::chrono_literals;

struct relay_ingress_test : ::testing::Test {
  void SetUp() override {
    master = random_relay_key();
    proxy = std::make_unique<bus_proxy>(ctx, bus_endpoints{"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"});
    ingress = std::make_unique<relay_ingress>(ctx, "tcp://127.0.0.1:*", proxy->bound().publish,
                                              master);
    subscriber = std::make_unique<bus_subscriber>(ctx, proxy->bound());
    subscriber->subscribe("", [this](const std::string& topic, const std::string& payload) {
      std::lock_guard lock(mutex);
      seen.push_back(topic + " " + payload);
    });
  }
  void TearDown() override {
    subscriber.reset();
    ingress.reset();
    proxy.reset();
  }

  /// A publisher on the ingress, as a relay is; `signer` signs for the
  /// trial of that key, or nothing.
  std::unique_ptr<bus_publisher> relay_publisher(std::optional<relay_key> key) {
    auto p = std::make_unique<bus_publisher>(ctx, bus_endpoints{ingress->bound(), ""}, true);
    EXPECT_TRUE(p->await_subscriber("relay.", 5s)); // the ingress takes every topic
    if (key)
      p->sign_with([k = *key](std::string_view t, std::string_view pl, std::string_view s) {
        return relay_frame_mac(k, t, pl, s);
      });
    return p;
  }

  /// Publishes a signed marker line for s1's trial 9 until the subscriber
  /// has it: every message sent before it has then been judged.
  void await_marker(const std::string& text) {
    auto p = relay_publisher(relay_trial_key(master, "s1", 9));
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < until) {
      p->publish("relay.s1.9", text);
      std::this_thread::sleep_for(20ms);
      std::lock_guard lock(mutex);
      for (const auto& s : seen)
        if (s == "relay.s1.9 " + text)
          return;
    }
    FAIL() << "the marker never came through";
  }

  std::vector<std::string> lines_except_markers() {
    std::lock_guard lock(mutex);
    std::vector<std::string> out;
    for (const auto& s : seen)
      if (s.rfind("relay.s1.9 ", 0) != 0 && s.rfind("hello", 0) != 0)
        out.push_back(s);
    return out;
  }

  zmq::context_t ctx;
  relay_key master;
  std::unique_ptr<bus_proxy> proxy;
  std::unique_ptr<relay_ingress> ingress;
  std::unique_ptr<bus_subscriber> subscriber;
  std::mutex mutex;
  std::vector<std::string> seen;
};

TEST_F(relay_ingress_test, passes_only_lines_signed_with_their_own_trials_key) {
  await_marker("ready"); // the subscriber is connected through the proxy
  auto trial1 = relay_publisher(relay_trial_key(master, "s1", 1));
  trial1->publish("relay.s1.1", "line of trial 1");
  // Trial 1's key on trial 2's topic: a relay speaking for another trial.
  trial1->publish("relay.s1.2", "trial 1 posing as trial 2");
  auto unsigned_relay = relay_publisher(std::nullopt);
  unsigned_relay->publish("relay.s1.1", "unsigned line");
  // A key of another master (another daemon, or a guess).
  auto stranger = relay_publisher(relay_trial_key(random_relay_key(), "s1", 1));
  stranger->publish("relay.s1.1", "line under a stranger's key");
  // Orders are no relay's to give, signed or not.
  trial1->publish("proposal.s1", "a forged proposal");
  unsigned_relay->publish("session.s1", "a forged session record");
  await_marker("done");

  EXPECT_EQ(lines_except_markers(), std::vector<std::string>{"relay.s1.1 line of trial 1"});
  const auto metrics = ingress->prometheus();
  EXPECT_NE(metrics.find("paratune_relay_ingress_messages_total{outcome=\"unauthenticated\"} 3\n"),
            std::string::npos)
    << metrics;
  EXPECT_NE(metrics.find("paratune_relay_ingress_messages_total{outcome=\"dropped\"} 2\n"),
            std::string::npos)
    << metrics;
}

TEST_F(relay_ingress_test, a_signed_line_reaches_the_bus_with_its_three_frames) {
  await_marker("first");
  // The subscriber drops any message that is not three frames with a
  // sequence: a line that reached it was passed on without its signature.
  EXPECT_EQ(subscriber->dropped(), 0u);
  EXPECT_GE(subscriber->received(), 1u);
}

} // namespace
} // namespace paratune
