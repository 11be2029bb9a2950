#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace paratune {

/// Whose lines a relay topic carries.
struct relay_topic_parts {
  std::string session;
  int trial = 0;
};

/// "relay.SID.TRIAL" with SID a plain name (core/text.hpp's is_plain_name,
/// at most 128 characters) and TRIAL a number of 1 to 9 digits: the only
/// topic the bus takes from cluster nodes. nullopt for anything else.
std::optional<relay_topic_parts> parse_relay_topic(std::string_view topic);

} // namespace paratune
