#include "adapters/bus/zmq_bus.hpp"

#include <array>
#include <condition_variable>
#include <map>
#include <thread>
#include <mutex>

#include <gtest/gtest.h>
#include <zmq_addon.hpp>

namespace paratune {
namespace {

struct inbox {
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::pair<std::string, std::string>> got;

  void push(const std::string& t, const std::string& p) {
    std::lock_guard<std::mutex> g{m};
    got.emplace_back(t, p);
    cv.notify_all();
  }
  bool wait_for(size_t n) {
    std::unique_lock<std::mutex> l{m};
    return cv.wait_for(l, std::chrono::seconds(5), [&] { return got.size() >= n; });
  }
};

/// A bus inside this process: proxy, one publisher, one subscriber.
struct local_bus {
  explicit local_bus(const std::string& name)
    : ep(bus_endpoints::inproc(name)), proxy(ctx, ep), pub(ctx, ep), sub(ctx, ep) {}
  zmq::context_t ctx{1};
  bus_endpoints ep;
  bus_proxy proxy;
  bus_publisher pub;
  bus_subscriber sub;
};

TEST(zmq_bus, delivers_by_topic_prefix_through_the_proxy) {
  local_bus bus{"bus-test-1"};
  auto& [ctx, ep, proxy, pub, sub] = bus;
  inbox trials, all;
  sub.subscribe("trial.s1.", [&](auto& t, auto& p) { trials.push(t, p); });
  sub.subscribe("", [&](auto& t, auto& p) { if (t[0] != '_') all.push(t, p); });
  ASSERT_TRUE(sub.await_connected(pub, std::chrono::seconds(5)));
  pub.publish("trial.s1.3.state", "a");
  pub.publish("proposal.s1", "b");
  pub.publish("trial.s2.1.state", "c");
  ASSERT_TRUE(all.wait_for(3));
  ASSERT_TRUE(trials.wait_for(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(trials.got.size(), 1u);
  EXPECT_EQ(trials.got[0].first, "trial.s1.3.state");
  EXPECT_EQ(trials.got[0].second, "a");
  EXPECT_EQ(all.got[1].second, "b");
}

TEST(zmq_bus, works_over_loopback_tcp_between_sockets) {
  zmq::context_t ctx{1};
  bus_proxy proxy{ctx, {"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"}};
  const auto& ep = proxy.bound();
  ASSERT_EQ(ep.publish.rfind("tcp://127.0.0.1:", 0), 0u);
  ASSERT_NE(ep.publish, ep.subscribe);  // two ports, both chosen by the kernel
  bus_publisher pub{ctx, ep};
  bus_subscriber sub{ctx, ep};
  inbox box;
  sub.subscribe("telemetry.", [&](auto& t, auto& p) { box.push(t, p); });
  ASSERT_TRUE(sub.await_connected(pub, std::chrono::seconds(5)));
  for (int i = 0; i < 100; ++i)
    pub.publish("telemetry.s.1", std::to_string(i));
  ASSERT_TRUE(box.wait_for(100));
  EXPECT_EQ(box.got[99].second, "99");
}

// A publisher that sees subscriptions (paratune-relay's) waits until its
// receiver's subscription has come up the bus, and then loses nothing of
// what it publishes first: no slow joiner.
TEST(zmq_bus, a_publisher_waits_for_a_subscription_to_its_topic) {
  zmq::context_t ctx{1};
  bus_proxy proxy{ctx, {"tcp://127.0.0.1:*", "tcp://127.0.0.1:*"}};
  bus_publisher plain{ctx, proxy.bound()};
  EXPECT_FALSE(plain.await_subscriber("relay.s.1", std::chrono::milliseconds(50)));
  bus_publisher pub{ctx, proxy.bound(), true};
  EXPECT_FALSE(pub.await_subscriber("relay.s.1", std::chrono::milliseconds(200)));  // nobody yet
  bus_subscriber sub{ctx, proxy.bound()};
  inbox box;
  sub.subscribe("relay.s.1", [&](auto& t, auto& p) { box.push(t, p); });
  EXPECT_FALSE(pub.await_subscriber("relay.s.2", std::chrono::milliseconds(200)));  // not its topic
  ASSERT_TRUE(pub.await_subscriber("relay.s.1", std::chrono::seconds(5)));
  pub.publish("relay.s.1", "first");
  ASSERT_TRUE(box.wait_for(1));
  EXPECT_EQ(box.got[0].second, "first");
}

TEST(zmq_bus, a_throwing_handler_is_counted_and_does_not_stop_delivery) {
  local_bus bus{"bus-test-3"};
  auto& [ctx, ep, proxy, pub, sub] = bus;
  inbox box;
  sub.subscribe("x", [&](auto&, auto& p) {
    if (p == "bad") throw std::runtime_error("cannot decode");
    box.push("x", p);
  });
  ASSERT_TRUE(sub.await_connected(pub, std::chrono::seconds(5)));
  pub.publish("x", "bad");
  pub.publish("x", "good");
  ASSERT_TRUE(box.wait_for(1));
  EXPECT_EQ(box.got[0].second, "good");
  EXPECT_EQ(sub.dropped(), 1u);
}

TEST(zmq_bus, binding_a_taken_endpoint_throws) {
  zmq::context_t ctx{1};
  auto ep = bus_endpoints::inproc("bus-test-4");
  bus_proxy proxy{ctx, ep};
  EXPECT_THROW(bus_proxy(ctx, ep), zmq::error_t);
}

/// Sends topic | payload | sequence frame with chosen numbers, as a
/// publisher whose messages were lost on the way would appear.
void send_numbered(zmq::socket_t& pub, const std::string& topic, uint64_t publisher,
                   uint64_t seq) {
  const auto frame = bus_sequence{publisher, seq}.encode();
  std::array<zmq::const_buffer, 3> parts{zmq::buffer(topic), zmq::buffer(std::string("p")),
                                         zmq::buffer(frame)};
  zmq::send_multipart(pub, parts);
}

TEST(zmq_bus, sequence_frames_round_trip_and_refuse_what_is_not_one) {
  bus_sequence s;
  ASSERT_TRUE(bus_sequence::decode(bus_sequence{0x0102030405060708, 258}.encode(), s));
  EXPECT_EQ(s.publisher, 0x0102030405060708u);
  EXPECT_EQ(s.seq, 258u);
  EXPECT_FALSE(bus_sequence::decode("short", s));
  EXPECT_FALSE(bus_sequence::decode(bus_sequence{0, 1}.encode(), s));
}

TEST(zmq_bus, a_skipped_number_is_a_gap_counted_per_publisher_and_reported) {
  local_bus bus{"bus-test-gaps"};
  auto& [ctx, ep, proxy, hello, sub] = bus;
  inbox box, reported;
  sub.on_gap([&](const std::string& topic, uint64_t missed) {
    reported.push(topic, std::to_string(missed));
  });
  sub.subscribe("t.", [&](auto& t, auto& p) { box.push(t, p); });
  ASSERT_TRUE(sub.await_connected(hello, std::chrono::seconds(5)));
  zmq::socket_t raw(ctx, zmq::socket_type::pub);
  raw.connect(ep.publish);
  auto received = [&] {
    std::lock_guard<std::mutex> g{box.m};
    return box.got.size();
  };
  // Probe until the raw publisher is through (its own topic, no gaps).
  for (uint64_t n = 1; n < 1000 && received() == 0; ++n) {
    send_numbered(raw, "t.probe", 7, n);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GT(received(), 0u);
  send_numbered(raw, "t.a", 7, 5);   // joined late: not a gap
  send_numbered(raw, "t.a", 7, 6);
  send_numbered(raw, "t.a", 7, 9);   // 7 and 8 lost
  send_numbered(raw, "t.b", 8, 1);
  send_numbered(raw, "t.b", 8, 3);   // 2 lost, another publisher
  send_numbered(raw, "t.b", 7, 1);   // publisher 7 numbers t.b on its own
  ASSERT_TRUE(reported.wait_for(2));
  EXPECT_EQ(reported.got[0], std::make_pair(std::string("t.a"), std::string("2")));
  EXPECT_EQ(reported.got[1], std::make_pair(std::string("t.b"), std::string("1")));
  EXPECT_EQ(sub.gaps(), 2u);
  EXPECT_EQ(sub.missed(), 3u);
  EXPECT_EQ(sub.gaps_by_publisher(), (std::map<uint64_t, uint64_t>{{7, 1}, {8, 1}}));
}

TEST(zmq_bus, a_message_without_a_sequence_frame_is_dropped_and_counted) {
  local_bus bus{"bus-test-noseq"};
  auto& [ctx, ep, proxy, pub, sub] = bus;
  inbox box;
  sub.subscribe("x", [&](auto& t, auto& p) { box.push(t, p); });
  ASSERT_TRUE(sub.await_connected(pub, std::chrono::seconds(5)));
  zmq::socket_t raw(ctx, zmq::socket_type::pub);
  raw.connect(ep.publish);
  std::this_thread::sleep_for(std::chrono::milliseconds(100)); // inproc connects at once
  std::array<zmq::const_buffer, 2> two{zmq::buffer(std::string("x")),
                                       zmq::buffer(std::string("no number"))};
  zmq::send_multipart(raw, two);
  pub.publish("x", "numbered");
  ASSERT_TRUE(box.wait_for(1));
  EXPECT_EQ(box.got[0].second, "numbered");
  EXPECT_EQ(sub.dropped(), 1u);
}

TEST(zmq_bus, a_subscriber_that_cannot_connect_says_so_instead_of_terminating) {
  zmq::context_t ctx{1};
  try {
    bus_subscriber sub{ctx, {"bogus://nowhere", "bogus://nowhere"}};
    FAIL() << "connected to a bogus endpoint";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot connect a bus subscriber to bogus://nowhere: ", 0),
              0u)
      << e.what();
  }
}

} // namespace
} // namespace paratune
