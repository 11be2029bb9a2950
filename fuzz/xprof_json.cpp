// Fuzzes the Xprof tool-output readers (adapters/profile): overview_page,
// input_pipeline_analyzer, roofline_model, op_profile, hlo_stats and
// framework_op_stats, through apply_xprof_tool(), the in-memory step that
// read_xprof_files() and the live-server client run on each tool's JSON.
//
// Input: one byte choosing the tool ('0'..'5' in xprof_known_tools order;
// any byte works, modulo 6), then the tool's JSON text. The documented error
// for JSON of the wrong shape is input_error; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "adapters/profile/gviz_table.hpp"
#include "adapters/profile/xprof_tools.hpp"
#include "core/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1)
    return 0;
  const auto tool_count = std::size(paratune::xprof_known_tools);
  const auto tool = paratune::xprof_known_tools[data[0] % tool_count];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  (void)paratune::parse_xprof_number(text);
  paratune::xprof_accumulator acc;
  acc.options.top_n = 5;
  try {
    paratune::apply_xprof_tool(tool, text, acc, "fuzz");
  } catch (const paratune::input_error&) {
    return 0;
  }
  // What read_xprof_files() does once every tool was applied.
  (void)paratune::finish_xprof_profile(std::move(acc));
  return 0;
}
