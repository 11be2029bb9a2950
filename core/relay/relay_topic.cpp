#include "core/relay/relay_topic.hpp"

#include "core/text.hpp"

namespace paratune {

std::optional<relay_topic_parts> parse_relay_topic(std::string_view topic) {
  constexpr std::string_view prefix = "relay.";
  if (topic.substr(0, prefix.size()) != prefix)
    return std::nullopt;
  topic.remove_prefix(prefix.size());
  const auto dot = topic.rfind('.');
  if (dot == std::string_view::npos)
    return std::nullopt;
  const auto session = topic.substr(0, dot);
  const auto trial = topic.substr(dot + 1);
  if (!is_plain_name(session, 128) || trial.empty() || trial.size() > 9
      || trial.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  return relay_topic_parts{std::string(session), std::stoi(std::string(trial))};
}

} // namespace paratune
