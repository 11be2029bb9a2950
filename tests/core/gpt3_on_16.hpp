#pragma once

// GPT3-7B on 16 A100s in fp16 (OptiCo's appendix D setting), with a start
// and a search space of the test's own: what the stop and OOM tests tune.

#include "core/tuning/tuning_context.hpp"
#include "validation/reference_specs.hpp"

namespace paratune::test {

inline tuning_context gpt3_7b_on_16(const char* initial,
                                    std::map<std::string, std::vector<std::string>> search) {
  tuning_context ctx;
  ctx.model = reference::gpt(32, 4096, 32, 50257);
  ctx.cluster = reference::dgx_a100();
  ctx.world_size = 16;
  ctx.prec = precision::fp16;
  ctx.initial = parse_config(initial);
  ctx.search = std::move(search);
  return ctx;
}

} // namespace paratune::test
