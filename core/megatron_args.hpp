#pragma once

#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
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
};

/// Renders the Megatron-LM command-line arguments for a run (without the
/// launcher and script). Only flags that differ from Megatron's defaults
/// are emitted for booleans.
std::vector<std::string> render_megatron_args(const megatron_launch& launch);

/// Reads arguments in the form render_megatron_args writes (and the usual
/// hand-written variants). Throws input_error naming the flag on a bad value.
/// Unknown flags are ignored, as Megatron's own parser would reject them
/// before paratune sees output; `unknown` collects them.
megatron_launch parse_megatron_args(const std::vector<std::string>& args,
                                    std::vector<std::string>* unknown = nullptr);

/// Checks the model a command line describes: the four sizes Megatron needs
/// are given, and every dimension is in range and agrees with the others
/// (check_model, naming Megatron's flags). Throws input_error.
void check_megatron_model(const megatron_launch& launch);

} // namespace paratune
