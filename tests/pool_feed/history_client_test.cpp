#include "adapters/pool_feed/history_client.hpp"

#include <atomic>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include <zmq_addon.hpp>

#include "adapters/pool_feed/control_router.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"
#include "storage/history_service.hpp"
#include "storage/message_pool.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

using namespace std::chrono_literals;

/// A control_router answering on its own thread until destroyed.
class served_router {
public:
  served_router(zmq::context_t& ctx, control_router::answer_fn answer)
    : router_(ctx, "tcp://127.0.0.1:*"), thread_([this, answer] {
        while (running_)
          router_.serve(answer, 10ms);
      }) {}
  ~served_router() {
    running_ = false;
    thread_.join();
  }
  const std::string& endpoint() const { return router_.endpoint(); }
  uint64_t undecodable() const { return router_.undecodable(); }

private:
  control_router router_;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

class history_client_test : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = test::make_temp_dir("pool-history");
    auto opened = message_pool::open(dir_);
    ASSERT_TRUE(opened) << describe(opened.error());
    pool_ = std::move(*opened);
    std::vector<wire::envelope> batch;
    for (int i = 1; i <= 7; ++i) {
      wire::telemetry t;
      t.trial = 1;
      t.iteration = i;
      batch.push_back(wire::make_envelope(i <= 5 ? "s1" : "s2", 1, t)); // s1: 1..5
    }
    ASSERT_TRUE(pool_->append_batch(batch));
  }
  void TearDown() override {
    pool_.reset();
    std::filesystem::remove_all(dir_);
  }

  control_router::answer_fn from_pool() {
    return [this](const control::request& r) { return serve_history(*pool_, r); };
  }

  zmq::context_t ctx_{1};
  std::string dir_;
  std::unique_ptr<message_pool> pool_;
};

std::vector<uint64_t> seqs_of(const control::reply& page) {
  std::vector<uint64_t> out;
  for (const auto& e : page.records)
    out.push_back(e.seq);
  return out;
}

TEST_F(history_client_test, reads_a_session_in_pages_over_tcp) {
  served_router server(ctx_, from_pool());
  history_client client(ctx_, server.endpoint(), 2000ms);
  auto first = client.fetch("s1", 0, 2);
  ASSERT_TRUE(first.ok()) << first.error->text;
  EXPECT_EQ(seqs_of(first.page), (std::vector<uint64_t>{1, 2}));
  EXPECT_TRUE(first.page.more);
  auto rest = client.fetch("s1", first.page.last_seq);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(seqs_of(rest.page), (std::vector<uint64_t>{3, 4, 5}));
  EXPECT_FALSE(rest.page.more);
  EXPECT_EQ(rest.page.last_seq, 5u);
  EXPECT_EQ(wire::body_of<wire::telemetry>(rest.page.records[2]).iteration, 5);
  EXPECT_EQ(client.requests(), 2u);
}

TEST_F(history_client_test, a_refusal_is_an_error_with_the_servers_reason) {
  served_router server(ctx_, from_pool());
  history_client client(ctx_, server.endpoint(), 2000ms);
  auto refused = client.fetch("", 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error->kind, history_failure::refused);
  EXPECT_EQ(refused.error->text,
            "history from " + server.endpoint() + ": a history request needs a session");
}

TEST_F(history_client_test, no_answer_is_a_timeout_naming_the_endpoint_and_the_client_asks_again) {
  zmq::socket_t silent(ctx_, zmq::socket_type::router); // takes requests, never answers
  silent.set(zmq::sockopt::linger, 0);
  silent.bind("tcp://127.0.0.1:*");
  const auto endpoint = silent.get(zmq::sockopt::last_endpoint);
  history_client client(ctx_, endpoint, 100ms);
  auto late = client.fetch("s1", 0);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error->kind, history_failure::timeout);
  EXPECT_EQ(late.error->text, "history from " + endpoint + ": no reply within 100 ms");
  // A fresh socket: the next request is sent, not refused by REQ's state.
  auto again = client.fetch("s1", 0);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error->kind, history_failure::timeout);
}

TEST_F(history_client_test, a_reply_that_is_not_a_control_reply_is_malformed) {
  zmq::socket_t liar(ctx_, zmq::socket_type::router);
  liar.set(zmq::sockopt::linger, 0);
  liar.bind("tcp://127.0.0.1:*");
  const auto endpoint = liar.get(zmq::sockopt::last_endpoint);
  std::thread answer([&] {
    std::vector<zmq::message_t> frames;
    (void)zmq::recv_multipart(liar, std::back_inserter(frames));
    frames.back().rebuild("\xdf\xff\xff\xff\xff", 5); // a map claiming 2^32 entries
    (void)zmq::send_multipart(liar, frames);
  });
  history_client client(ctx_, endpoint, 2000ms);
  auto bad = client.fetch("s1", 0);
  answer.join();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error->kind, history_failure::malformed);
  EXPECT_NE(bad.error->text.find("history from " + endpoint + ": cannot decode history reply"),
            std::string::npos)
    << bad.error->text;
}

TEST_F(history_client_test, a_page_out_of_order_or_of_another_session_is_malformed) {
  served_router server(ctx_, [this](const control::request& r) {
    auto reply = serve_history(*pool_, r);
    std::swap(reply.records[0], reply.records[1]);
    return reply;
  });
  history_client client(ctx_, server.endpoint(), 2000ms);
  auto swapped = client.fetch("s1", 0, 3);
  ASSERT_FALSE(swapped.ok());
  EXPECT_EQ(swapped.error->kind, history_failure::malformed);
  EXPECT_EQ(swapped.error->text,
            "history from " + server.endpoint() + ": record 1 is out of order after 2");
}

TEST_F(history_client_test, the_router_refuses_a_request_that_does_not_decode) {
  served_router server(ctx_, from_pool());
  zmq::socket_t req(ctx_, zmq::socket_type::req);
  req.set(zmq::sockopt::linger, 0);
  req.set(zmq::sockopt::rcvtimeo, 2000);
  req.connect(server.endpoint());
  req.send(zmq::str_buffer("not msgpack at all"), zmq::send_flags::none);
  zmq::message_t reply;
  ASSERT_TRUE(req.recv(reply));
  auto decoded = wire::unpack<control::reply>(reply.to_string_view(), "reply");
  EXPECT_FALSE(decoded.ok);
  EXPECT_NE(decoded.error.find("cannot decode control request"), std::string::npos)
    << decoded.error;
  EXPECT_EQ(server.undecodable(), 1u);
}

TEST_F(history_client_test, an_answer_that_throws_is_still_answered_with_a_refusal) {
  served_router server(ctx_, [](const control::request&) -> control::reply {
    throw std::runtime_error("pool closed");
  });
  history_client client(ctx_, server.endpoint(), 2000ms);
  auto got = client.fetch("s1", 0);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error->kind, history_failure::refused);
  EXPECT_EQ(got.error->text,
            "history from " + server.endpoint() + ": the request failed: pool closed");
}

TEST(decode_history_reply, checks_every_record_of_a_page) {
  const std::string endpoint = "tcp://127.0.0.1:5555";
  control::reply page;
  page.ok = true;
  for (uint64_t seq : {4, 9}) {
    wire::envelope e;
    e.type = "telemetry";
    e.session = "s1";
    e.seq = seq;
    page.records.push_back(e);
  }
  page.last_seq = 9;
  auto good = decode_history_reply(wire::pack(page), "s1", 3, endpoint);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(good.page.records.size(), 2u);

  auto error_of = [&](const control::reply& r, uint64_t after) {
    auto got = decode_history_reply(wire::pack(r), "s1", after, endpoint);
    return got.ok() ? std::string("ok") : got.error->text;
  };
  EXPECT_EQ(error_of(page, 4), "history from " + endpoint + ": record 4 is out of order after 4");
  auto other = page;
  other.records[1].session = "s2";
  EXPECT_EQ(error_of(other, 0),
            "history from " + endpoint + ": a record of session 's2' in a page of 's1'");
  auto newer = page;
  newer.records[0].v = wire::schema_version + 1;
  EXPECT_EQ(error_of(newer, 0),
            "history from " + endpoint + ": record 4 is not an envelope this build reads");
  auto short_last = page;
  short_last.last_seq = 5;
  EXPECT_EQ(error_of(short_last, 0),
            "history from " + endpoint + ": last_seq 5 is below the page's last record 9");
  auto truncated = wire::pack(page);
  truncated.resize(truncated.size() / 2);
  auto cut = decode_history_reply(truncated, "s1", 0, endpoint);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.error->kind, history_failure::malformed);
  EXPECT_EQ(decode_history_reply("", "s1", 0, endpoint).error->kind, history_failure::malformed);
}

} // namespace
} // namespace paratune
