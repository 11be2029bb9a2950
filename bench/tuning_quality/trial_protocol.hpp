#pragma once

// The trial protocol between bench_tuning_quality and an external search
// peer (optuna_peer.py): JSON, one object per line.
//
//   bench -> peer  {"op":"start","space":{"tp":["1","2"],...},"budget":20,"seed":7}
//   peer  -> bench {"op":"ask","config":{"tp":"2",...}}     a configuration to run
//   bench -> peer  {"op":"tell","status":"succeeded","tflops_per_gpu":151.2}
//                  {"op":"tell","status":"failed"}          it ran and failed
//                  {"op":"tell","status":"refused"}         Megatron's rules refuse it:
//                                                           no trial was spent
//   peer  -> bench {"op":"done"}                            it has nothing new to ask
//   bench -> peer  {"op":"stop"}                            the budget is spent
//
// The bench runs every configuration on its own simulated cluster, so the
// peer sees exactly what every other strategy sees.

#include <map>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace paratune::bench {

/// The peer asks for one configuration: key -> value, as the job file writes them.
struct peer_ask {
  std::map<std::string, std::string> config;
};

/// The peer has nothing new to propose: the run ends with the trials it has.
struct peer_done {};

/// A line the bench cannot use, with what is wrong with it.
struct protocol_error {
  std::string message;
};

using peer_message = std::variant<peer_ask, peer_done, protocol_error>;

/// What a tried configuration did, as the peer is told.
enum class tell_status { succeeded, failed, refused };

inline const char* to_string(tell_status s) {
  switch (s) {
    case tell_status::succeeded: return "succeeded";
    case tell_status::failed: return "failed";
    case tell_status::refused: return "refused";
  }
  return "failed";
}

inline std::string start_message(const std::map<std::string, std::vector<std::string>>& space,
                                 int budget, uint64_t seed) {
  nlohmann::json j;
  j["op"] = "start";
  j["space"] = nlohmann::json::object();
  for (const auto& [key, values] : space)
    j["space"][key] = values;
  j["budget"] = budget;
  j["seed"] = seed;
  return j.dump();
}

inline std::string tell_message(tell_status status, double tflops_per_gpu = 0) {
  nlohmann::json j;
  j["op"] = "tell";
  j["status"] = to_string(status);
  if (status == tell_status::succeeded)
    j["tflops_per_gpu"] = tflops_per_gpu;
  return j.dump();
}

inline std::string stop_message() { return R"({"op":"stop"})"; }

namespace detail {

inline std::string quoted_excerpt(const std::string& line) {
  return "'" + (line.size() > 80 ? line.substr(0, 80) + "..." : line) + "'";
}

} // namespace detail

/// Reads one line from the peer. Anything but an ask whose keys and values
/// all belong to `space` is a protocol error naming what is wrong.
inline peer_message parse_peer_message(const std::string& line,
                                       const std::map<std::string, std::vector<std::string>>& space) {
  const auto j = nlohmann::json::parse(line, nullptr, false);
  const auto excerpt = detail::quoted_excerpt(line);
  if (j.is_discarded() || !j.is_object())
    return protocol_error{"peer line " + excerpt + " is not a JSON object"};
  if (!j.contains("op") || !j["op"].is_string())
    return protocol_error{"peer line " + excerpt + " has no \"op\""};
  if (j["op"] == "done")
    return peer_done{};
  if (j["op"] != "ask")
    return protocol_error{"peer line " + excerpt + ": unknown op \"" + j["op"].get<std::string>()
                          + "\" (expected \"ask\" or \"done\")"};
  if (!j.contains("config") || !j["config"].is_object())
    return protocol_error{"peer ask " + excerpt + " has no \"config\" object"};
  peer_ask ask;
  for (const auto& [key, value] : j["config"].items()) {
    auto dim = space.find(key);
    if (dim == space.end())
      return protocol_error{"peer ask: key '" + key + "' is not in the search space"};
    if (!value.is_string())
      return protocol_error{"peer ask: the value of '" + key + "' is not a string"};
    const auto v = value.get<std::string>();
    if (std::find(dim->second.begin(), dim->second.end(), v) == dim->second.end())
      return protocol_error{"peer ask: '" + v + "' is not a value of '" + key + "'"};
    ask.config[key] = v;
  }
  for (const auto& [key, values] : space)
    if (!ask.config.count(key))
      return protocol_error{"peer ask: key '" + key + "' is missing"};
  return ask;
}

} // namespace paratune::bench
