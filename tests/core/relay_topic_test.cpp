// Which topics the relay ingress takes from cluster nodes (core/relay/relay_topic.hpp).

#include <gtest/gtest.h>

#include "core/relay/relay_topic.hpp"

namespace paratune {
namespace {

TEST(relay_topic, names_a_session_and_a_trial) {
  const auto t = parse_relay_topic("relay.20261127-a1b2.12");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->session, "20261127-a1b2");
  EXPECT_EQ(t->trial, 12);
  EXPECT_EQ(parse_relay_topic("relay.s1.999999999")->trial, 999999999);
}

TEST(relay_topic, anything_else_is_no_relays) {
  for (const char* topic : {"proposal.s1", "relay.s1", "relay.s1.", "relay..1", "relay.s1.1x",
                            "relay.s1.-1", "relay.s1.1234567890", "relay.s 1.1", "relays.s1.1",
                            "relay.s1.1 ", "", "relay."})
    EXPECT_FALSE(parse_relay_topic(topic)) << topic;
  EXPECT_FALSE(parse_relay_topic("relay." + std::string(129, 'a') + ".1"));
  EXPECT_TRUE(parse_relay_topic("relay." + std::string(128, 'a') + ".1"));
}

} // namespace
} // namespace paratune
