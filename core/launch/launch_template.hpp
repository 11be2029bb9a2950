#pragma once

#include <optional>
#include <string>
#include <vector>

namespace paratune {

/// What a placeholder of a launch template stands for.
enum class launch_field {
  /// {framework_args}: the trial's arguments for its framework's trainer
  /// (Megatron-LM's flags, MaxText's key=value overrides), several argv
  /// entries; one template serves every framework.
  framework_args,
  megatron_args,  ///< {megatron_args}: the same, in a Megatron-LM trial only
  maxtext_args,   ///< {maxtext_args}: the same, in a MaxText trial only
  trial,          ///< {trial}: the trial number
  session,        ///< {session}: the tuning session's id
  nodes,          ///< {nodes}: nodes the trial runs on
  gpus_per_node,  ///< {gpus_per_node}: devices per node
  workdir,        ///< {workdir}: the trial's own directory
  relay,          ///< {relay}: the bus endpoint (tcp://host:port) relays publish to
  // Known only once a Slurm job runs, on each node: they stay placeholders
  // in the argv, and the batch script reads them from Slurm's variables
  // (core/launch/batch_script.hpp).
  node_rank,      ///< {node_rank}: this node's index in the job, 0 .. nodes-1 (SLURM_NODEID)
  master_addr,    ///< {master_addr}: the job's first node, the rendezvous host (MASTER_ADDR)
  master_port,    ///< {master_port}: a free port on it (MASTER_PORT)
  job_id,         ///< {job_id}: the Slurm job's id (SLURM_JOB_ID)
};

const char* to_string(launch_field f);

/// Whether `f` is known only inside a Slurm job (node_rank, master_addr,
/// master_port, job_id): rendering leaves it as its placeholder text.
bool is_runtime_field(launch_field f);

/// The values one trial fills a template with.
struct launch_values {
  /// The trial's framework arguments, and the placeholder its framework's
  /// templates have always named them by (megatron_args or maxtext_args):
  /// the other framework's name is refused, never filled with these.
  std::vector<std::string> framework_args;
  launch_field framework = launch_field::megatron_args;
  /// The framework as people name it, for a refusal's words.
  std::string framework_title = "Megatron-LM";
  int trial = 0;
  std::string session;
  int nodes = 1;
  int gpus_per_node = 1;
  std::string workdir;
  std::string relay;
};

/// The command of a trial as the user writes it in a job file: argv tokens
/// with placeholders, e.g.
///   [torchrun, --nproc-per-node, "{gpus_per_node}", pretrain_gpt.py, "{megatron_args}",
///    "--save={workdir}/checkpoints"]
/// A list placeholder ({framework_args}, {megatron_args}, {maxtext_args}) must be a whole token
/// and expands into one argv entry per argument; any other may sit inside a
/// token. "{{" and "}}" are literal braces. Rendering yields an argv: no
/// shell splits or expands it, so a value holding spaces, quotes or '; rm
/// -rf ~' stays one argument (batch_script() quotes it for Slurm).
class launch_template {
public:
  /// Checks every token; throws input_error naming the token and the
  /// placeholder for an unknown name, an unclosed brace or a list
  /// placeholder inside a token.
  static launch_template parse(std::vector<std::string> tokens);

  /// The argv of one trial. Throws input_error when a value holds a NUL
  /// byte, or the template names the other framework's arguments.
  std::vector<std::string> render(const launch_values& v) const;

  /// Whether some token names `f`.
  bool uses(launch_field f) const;
  /// The first runtime field some token names (is_runtime_field), if any.
  std::optional<launch_field> runtime_field() const;
  const std::vector<std::string>& tokens() const { return tokens_; }

private:
  /// One piece of a token: literal text, or a placeholder.
  struct piece {
    std::string text;
    std::optional<launch_field> field;
  };
  std::vector<std::string> tokens_;
  std::vector<std::vector<piece>> pieces_;  ///< per token
};

} // namespace paratune
