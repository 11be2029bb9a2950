#include "adapters/pool_feed/record_feed.hpp"

#include <atomic>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "adapters/pool_feed/control_router.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "messages/topics.hpp"
#include "storage/history_service.hpp"
#include "storage/message_pool.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using namespace std::chrono_literals;

// A pool of one session with two trials' telemetry, A (trial 1) and B
// (trial 2): pool numbers 1 A, 2 A, 3 B, 4 A, 5 A, 6 B. The bus loses A's
// second and fourth messages (pool 2 and 5); 5 is A's last, so only a
// catch-up can find it.
class record_feed_test : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = test::make_temp_dir("pool-feed");
    auto opened = message_pool::open(dir_);
    ASSERT_TRUE(opened) << describe(opened.error());
    pool_ = std::move(*opened);
    for (int trial : {1, 1, 2, 1, 1, 2}) {
      wire::telemetry t;
      t.trial = trial;
      records_.push_back(wire::make_envelope("s1", trial, t));
    }
    ASSERT_TRUE(pool_->append_batch(records_));
    router_.emplace(ctx_, "tcp://127.0.0.1:*");
    serving_ = std::thread([this] {
      const control_router::answer_fn answer = [this](const control::request& r) {
        return serve_history(*pool_, r);
      };
      while (running_)
        router_->serve(answer, 10ms);
    });
    bus_.set(zmq::sockopt::linger, 0);
    bus_.bind("tcp://127.0.0.1:*");
  }
  void TearDown() override {
    running_ = false;
    serving_.join();
    pool_.reset();
    std::filesystem::remove_all(dir_);
  }

  /// Publishes pool record `seq` as its topic's `number`th message.
  void publish(uint64_t seq, uint64_t number) {
    const auto& e = records_[seq - 1];
    const auto topic = topics::telemetry(e.session, e.trial);
    const auto body = wire::pack(e);
    const auto frame = bus_sequence{0xfeed, number}.encode();
    bus_.send(zmq::buffer(topic), zmq::send_flags::sndmore);
    bus_.send(zmq::buffer(body), zmq::send_flags::sndmore);
    bus_.send(zmq::buffer(frame), zmq::send_flags::none);
  }

  /// Waits until the feed's subscription reached the bus socket.
  void await_subscription() {
    zmq::message_t m;
    bus_.set(zmq::sockopt::rcvtimeo, 5000);
    ASSERT_TRUE(bus_.recv(m));
  }

  zmq::context_t ctx_{1};
  std::string dir_;
  std::unique_ptr<message_pool> pool_;
  std::vector<wire::envelope> records_;
  std::optional<control_router> router_;
  std::atomic<bool> running_{true};
  std::thread serving_;
  zmq::socket_t bus_{ctx_, zmq::socket_type::xpub};
};

TEST_F(record_feed_test, fills_holes_from_the_pool_once_each_and_in_order_per_topic) {
  record_feed::options opts;
  opts.prefixes = {"telemetry.s1."};
  record_feed feed(ctx_, bus_.get(zmq::sockopt::last_endpoint), router_->endpoint(),
                   [](const wire::envelope& e) { return topics::telemetry(e.session, e.trial); },
                   opts);
  std::vector<std::pair<std::string, uint64_t>> got;
  auto sink = [&](std::string_view topic, const wire::envelope& e) {
    got.emplace_back(std::string(topic), e.seq);
  };
  feed.poll(0ms, sink); // lets the SUB socket connect and subscribe
  await_subscription();

  publish(1, 1); // A#1
  publish(3, 1); // B#1   (A#2, pool 2, lost)
  publish(4, 3); // A#3 reveals the hole
  publish(6, 2); // B#2   (A#4, pool 5, lost: the end of A)
  for (int i = 0; i < 100 && feed.counts().messages < 4; ++i)
    feed.poll(50ms, sink);
  ASSERT_EQ(feed.counts().messages, 4u);
  EXPECT_FALSE(feed.catch_up("s1", sink));

  const std::string a = "telemetry.s1.1", b = "telemetry.s1.2";
  EXPECT_EQ(got, (std::vector<std::pair<std::string, uint64_t>>{
                   {a, 1}, {b, 3}, {a, 2}, {a, 4}, {b, 6}, {a, 5}}));
  EXPECT_EQ(feed.counts().live, 4u);
  EXPECT_EQ(feed.counts().recovered, 2u);
  EXPECT_EQ(feed.counts().recoveries, 1u);
  EXPECT_EQ(feed.counts().failed, 0u);

  // Everything again: the live copies and a second catch-up add nothing.
  for (uint64_t seq : {1, 2, 4, 5})
    publish(seq, 4 + seq);
  for (int i = 0; i < 100 && feed.counts().messages < 8; ++i)
    feed.poll(50ms, sink);
  EXPECT_FALSE(feed.catch_up("s1", sink));
  EXPECT_EQ(got.size(), 6u);
}

TEST_F(record_feed_test, a_recovery_delivers_only_the_topics_subscribed_to) {
  wire::trial_result result; // pool 7, on trial.s1.1.state: not telemetry
  result.trial = 1;
  wire::telemetry t;         // pool 8, A's fifth message
  t.trial = 1;
  std::vector<wire::envelope> more{wire::make_envelope("s1", 1, result),
                                   wire::make_envelope("s1", 1, t)};
  ASSERT_TRUE(pool_->append_batch(more));
  records_.insert(records_.end(), more.begin(), more.end());
  record_feed::options opts;
  opts.prefixes = {"telemetry.s1."};
  record_feed feed(ctx_, bus_.get(zmq::sockopt::last_endpoint), router_->endpoint(),
                   [](const wire::envelope& e) {
                     return e.type == "telemetry" ? topics::telemetry(e.session, e.trial)
                                                  : topics::trial_state(e.session, e.trial);
                   },
                   opts);
  std::vector<uint64_t> got;
  auto sink = [&](std::string_view, const wire::envelope& e) { got.push_back(e.seq); };
  feed.poll(0ms, sink);
  await_subscription();

  publish(1, 1);
  publish(8, 5); // A's numbers 2-4 lost: the pool answers with 2..7 of every topic
  for (int i = 0; i < 100 && feed.counts().messages < 2; ++i)
    feed.poll(50ms, sink);
  EXPECT_EQ(got, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 8}));
  EXPECT_EQ(feed.counts().recovered, 5u);
}

TEST_F(record_feed_test, an_unreachable_pool_is_reported_and_the_hole_tried_again) {
  record_feed::options opts;
  opts.prefixes = {"telemetry.s1."};
  opts.history_timeout = 100ms;
  opts.attempts = 1;
  zmq::socket_t silent(ctx_, zmq::socket_type::router); // takes requests, never answers
  silent.set(zmq::sockopt::linger, 0);
  silent.bind("tcp://127.0.0.1:*");
  const auto endpoint = silent.get(zmq::sockopt::last_endpoint);
  record_feed feed(ctx_, bus_.get(zmq::sockopt::last_endpoint), endpoint,
                   [](const wire::envelope& e) { return topics::telemetry(e.session, e.trial); },
                   opts);
  std::vector<uint64_t> got;
  auto sink = [&](std::string_view, const wire::envelope& e) { got.push_back(e.seq); };
  feed.poll(0ms, sink);
  await_subscription();

  publish(1, 1);
  publish(4, 3); // a hole nobody can fill
  publish(5, 4); // continues A's numbers, but the hole is still open
  for (int i = 0; i < 100 && feed.counts().messages < 3; ++i)
    feed.poll(50ms, sink);
  EXPECT_EQ(got, (std::vector<uint64_t>{1}));
  EXPECT_EQ(feed.counts().failed, 2u);
  ASSERT_TRUE(feed.last_error());
  EXPECT_EQ(feed.last_error()->kind, history_failure::timeout);
  EXPECT_EQ(feed.last_error()->text, "history from " + endpoint + ": no reply within 100 ms");
}

} // namespace
} // namespace paratune
