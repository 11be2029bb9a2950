#pragma once

#include <string_view>

#include "adapters/megatron/megatron_log_parser.hpp"

namespace paratune::test {

/// Parses `text` as one whole log (fed at once, then finished).
inline megatron_log parse_text(std::string_view text) {
  megatron_log_parser p;
  p.feed(text);
  p.finish();
  return p.log();
}

} // namespace paratune::test
