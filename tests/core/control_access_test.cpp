// The control endpoint's access decision, its peer parsing, the submit rate
// limit, and the escaping that keeps untrusted bytes out of replies.

#include <gtest/gtest.h>

#include "core/control_access.hpp"
#include "core/text.hpp"
#include "core/token_bucket.hpp"

namespace paratune {
namespace {

const std::string alice_key = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7";

control_access_policy policy() {
  return {1000, {1002}, {alice_key}};
}

control_peer ipc_peer(uint32_t uid) {
  control_peer p;
  p.address = ":" + std::to_string(uid) + ":100:4242";
  p.ipc = parse_ipc_peer(p.address);
  return p;
}

TEST(control_access, zeromq_unix_socket_addresses_carry_the_kernels_credentials) {
  const auto c = parse_ipc_peer(":1000:100:4242");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->uid, 1000u);
  EXPECT_EQ(c->gid, 100u);
  EXPECT_EQ(c->pid, 4242);
  EXPECT_EQ(parse_ipc_peer("/run/x.sock:0:0:1")->uid, 0u);
  EXPECT_FALSE(parse_ipc_peer("127.0.0.1"));
  EXPECT_FALSE(parse_ipc_peer(":1000:100"));
  EXPECT_FALSE(parse_ipc_peer(":x:100:4242"));
  EXPECT_FALSE(parse_ipc_peer(":-1:100:4242"));
  EXPECT_FALSE(parse_ipc_peer(""));
}

TEST(control_access, the_owner_and_control_users_are_heard_on_the_unix_socket) {
  const auto owner = decide_control_access(policy(), ipc_peer(1000));
  EXPECT_TRUE(owner.allowed);
  EXPECT_EQ(owner.user, "uid:1000");
  EXPECT_TRUE(decide_control_access(policy(), ipc_peer(1002)).allowed);
  const auto other = decide_control_access(policy(), ipc_peer(65534));
  EXPECT_FALSE(other.allowed);
  EXPECT_EQ(other.user, "uid:65534");
  EXPECT_EQ(other.reason,
            "uid 65534 is neither the daemon's owner (uid 1000) nor in control_users");
}

TEST(control_access, without_curve_a_tcp_peer_is_never_heard) {
  control_peer tcp;
  tcp.address = "127.0.0.1";
  const auto d = decide_control_access(policy(), tcp);
  EXPECT_FALSE(d.allowed);
  EXPECT_EQ(d.reason, "not a Unix-socket peer, and TCP clients must speak CURVE");
}

TEST(control_access, a_curve_client_is_heard_only_with_a_listed_key) {
  control_peer p;
  p.mechanism = control_mechanism::curve;
  p.address = "10.0.0.7";
  p.client_key = alice_key;
  const auto alice = decide_control_access(policy(), p);
  EXPECT_TRUE(alice.allowed);
  EXPECT_EQ(alice.user, "key:" + alice_key);
  p.client_key = "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID";
  const auto other = decide_control_access(policy(), p);
  EXPECT_FALSE(other.allowed);
  EXPECT_EQ(other.reason, "its public key is not in authorized_keys");
  p.mechanism = parse_control_mechanism("PLAIN");
  EXPECT_EQ(decide_control_access(policy(), p).reason, "an unsupported security mechanism");
}

TEST(token_bucket, a_burst_passes_then_the_rate_refills_it) {
  token_bucket b{2, 3};
  EXPECT_TRUE(b.take(10.0));
  EXPECT_TRUE(b.take(10.0));
  EXPECT_TRUE(b.take(10.0));
  EXPECT_FALSE(b.take(10.0));
  EXPECT_FALSE(b.take(10.4)); // 0.8 of a token
  EXPECT_TRUE(b.take(10.5));  // 1.0
  EXPECT_FALSE(b.take(10.5));
  EXPECT_TRUE(b.take(100.0)); // refilled to the burst, not beyond
  EXPECT_TRUE(b.take(100.0));
  EXPECT_TRUE(b.take(100.0));
  EXPECT_FALSE(b.take(100.0));
  EXPECT_FALSE(b.take(99.0)); // a clock that went back refills nothing
}

TEST(text, untrusted_bytes_become_printable_or_valid_utf8) {
  EXPECT_EQ(printable_excerpt("sub\xff\x01mit\\", 64), "sub\\xff\\x01mit\\x5c");
  EXPECT_EQ(printable_excerpt("abcdef", 3), "abc...");
  EXPECT_EQ(utf8_escaped("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
  EXPECT_EQ(utf8_escaped("a\xff" "b\xc3"), "a\\xffb\\xc3");
  EXPECT_EQ(utf8_escaped("\xc0\xaf"), "\\xc0\\xaf");         // an overlong '/'
  EXPECT_EQ(utf8_escaped("\xed\xa0\x80"), "\\xed\\xa0\\x80"); // a surrogate
  EXPECT_EQ(utf8_escaped("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80"); // beyond U+10FFFF
  EXPECT_EQ(utf8_escaped("\xf0\x9f\x98\x80"), "\xf0\x9f\x98\x80");
}

} // namespace
} // namespace paratune
