#pragma once

#include <string_view>

namespace paratune::sim {

/// data/megatron_lm/pretrain_gpt_flags.txt as the build found it: every
/// option Megatron-LM's pretrain_gpt.py parser defines, with its arity.
std::string_view megatron_flags_text();

} // namespace paratune::sim
