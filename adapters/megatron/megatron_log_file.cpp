#include "adapters/megatron/log_chunks.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"

namespace paratune {

megatron_log parse_megatron_log_file(const std::string& path) {
  megatron_log_parser parser;
  read_log_chunks(path, "Megatron-LM log", [&](std::string_view chunk) { parser.feed(chunk); });
  parser.finish();
  return parser.log();
}

} // namespace paratune
