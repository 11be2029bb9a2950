#pragma once

#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "core/megatron_option_list.hpp"
#include "core/megatron_rules.hpp"
#include "core/model_spec.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// What a Megatron-LM pretrain_gpt.py command line describes.
struct megatron_launch {
  model_spec model;
  training_config config;
  precision prec = precision::bf16;
  int train_iters = 10;
  int log_interval = 1;
  /// What else Megatron-LM's start-up checks read from the command line.
  megatron_flags flags;
};

/// Renders the Megatron-LM command-line arguments for a run (without the
/// launcher and script). Only flags that differ from Megatron's defaults
/// are emitted for booleans.
std::vector<std::string> render_megatron_args(const megatron_launch& launch);

/// Reads arguments in the form render_megatron_args writes (and the usual
/// hand-written variants, "--flag=value" too). Throws input_error naming the
/// flag on a bad value. A flag paratune does not model is skipped with its
/// values when `options` lists it (Megatron-LM's parser defines it);
/// otherwise it, like a stray word, goes to `unknown`, as argparse would
/// refuse it.
megatron_launch parse_megatron_args(const std::vector<std::string>& args,
                                    std::vector<std::string>* unknown = nullptr,
                                    const megatron_option_list* options = nullptr);

/// Megatron-LM's refusals of a parsed command line on `world_size` devices,
/// in the order Megatron-LM raises them (check_megatron_arguments).
std::vector<rule_violation> check_megatron_launch(const megatron_launch& launch, int world_size);

/// Checks the model a command line describes: the four sizes Megatron needs
/// are given, and every dimension is in range and agrees with the others
/// (check_model, naming Megatron's flags). Throws input_error.
void check_megatron_model(const megatron_launch& launch);

} // namespace paratune
