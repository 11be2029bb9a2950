#include "daemon/json_log.hpp"

#include <memory>

#include <nlohmann/json.hpp>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace paratune {

namespace {

/// %* in the pattern: the message as a JSON string, quotes included (the
/// message holds what users and logs said: quotes, newlines, bytes that
/// are not UTF-8).
class json_message_flag final : public spdlog::custom_flag_formatter {
public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const std::string text(msg.payload.data(), msg.payload.size());
    const auto quoted =
      nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    dest.append(quoted.data(), quoted.data() + quoted.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<json_message_flag>();
  }
};

} // namespace

void use_log_format(log_format format, const std::string& level) {
  // stderr: a daemon's stdout stays free, and journald takes both.
  spdlog::set_default_logger(spdlog::stderr_color_mt("paratune"));
  spdlog::set_level(spdlog::level::from_str(level));
  if (format == log_format::text) {
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %v");
    return;
  }
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<json_message_flag>('*').set_pattern(
    R"({"ts":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","logger":"%n","pid":%P,"msg":%*})");
  spdlog::set_formatter(std::move(f));
}

} // namespace paratune
