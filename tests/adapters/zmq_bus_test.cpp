#include "adapters/bus/zmq_bus.hpp"

#include <condition_variable>
#include <mutex>

#include <gtest/gtest.h>

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

TEST(zmq_bus, delivers_by_topic_prefix_through_the_proxy) {
  zmq::context_t ctx{1};
  auto ep = bus_endpoints::inproc("bus-test-1");
  bus_proxy proxy{ctx, ep};
  bus_publisher pub{ctx, ep};
  bus_subscriber sub{ctx, ep};
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

TEST(zmq_bus, a_throwing_handler_is_counted_and_does_not_stop_delivery) {
  zmq::context_t ctx{1};
  auto ep = bus_endpoints::inproc("bus-test-3");
  bus_proxy proxy{ctx, ep};
  bus_publisher pub{ctx, ep};
  bus_subscriber sub{ctx, ep};
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

} // namespace
} // namespace paratune
