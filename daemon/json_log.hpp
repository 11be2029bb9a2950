#pragma once

#include <string>

#include "core/secret_redactor.hpp"
#include "daemon/daemon_config.hpp"

namespace paratune {

/// Sets how spdlog writes (to stderr): plain text, or one JSON object per
/// line ({"ts", "level", "logger", "msg", "pid"}) with the message escaped,
/// for a log collector. `level` is one of trace, debug, info, warn, error.
/// Every message passes `secrets` first: a secret's value never reaches
/// the log, whatever text carried it.
void use_log_format(log_format format, const std::string& level, secret_redactor secrets = {});

} // namespace paratune
