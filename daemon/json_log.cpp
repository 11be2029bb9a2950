#include "daemon/json_log.hpp"

#include <memory>

#include <nlohmann/json.hpp>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace paratune {

namespace {

using shared_redactor = std::shared_ptr<const secret_redactor>;

/// %* in the pattern: the message with every secret's value redacted, as
/// it is (text) or as a JSON string, quotes included (the message holds
/// what users and logs said: quotes, newlines, bytes that are not UTF-8).
class log_message_flag final : public spdlog::custom_flag_formatter {
public:
  log_message_flag(shared_redactor redactor, bool json)
    : redactor_(std::move(redactor)), json_(json) {}
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const auto text = redactor_->redact(std::string_view(msg.payload.data(), msg.payload.size()));
    const auto out =
      json_ ? nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
            : text;
    dest.append(out.data(), out.data() + out.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<log_message_flag>(redactor_, json_);
  }

private:
  shared_redactor redactor_;
  bool json_;
};

} // namespace

void use_log_format(log_format format, const std::string& level, secret_redactor secrets) {
  // stderr: a daemon's stdout stays free, and journald takes both.
  spdlog::set_default_logger(spdlog::stderr_color_mt("paratune"));
  spdlog::set_level(spdlog::level::from_str(level));
  const bool json = format == log_format::json;
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<log_message_flag>('*', std::make_shared<const secret_redactor>(std::move(secrets)),
                                json)
    .set_pattern(json ? R"({"ts":"%Y-%m-%dT%H:%M:%S.%e%z","level":"%l","logger":"%n","pid":%P,"msg":%*})"
                      : "%Y-%m-%dT%H:%M:%S.%e%z %^%l%$ %*");
  spdlog::set_formatter(std::move(f));
}

} // namespace paratune
