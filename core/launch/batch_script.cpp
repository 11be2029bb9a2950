#include "core/launch/batch_script.hpp"

#include <array>
#include <string_view>
#include <utility>

#include "core/input_error.hpp"
#include "core/shell_quote.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

/// Each runtime placeholder and the variable that holds its value in a job.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> runtime_variables = {{
  {"{node_rank}", "SLURM_NODEID"},
  {"{master_addr}", "MASTER_ADDR"},
  {"{master_port}", "MASTER_PORT"},
  {"{job_id}", "SLURM_JOB_ID"},
}};

/// The first placeholder in `word` at or after `from` (a runtime one, or
/// one of `extra`): its position, its length and the variable holding it;
/// position npos when none.
struct placeholder_at {
  size_t at = std::string_view::npos;
  size_t length = 0;
  std::string_view variable;
};

placeholder_at next_placeholder(std::string_view word, size_t from,
                                const std::vector<std::pair<std::string, std::string>>& extra) {
  placeholder_at best;
  const auto consider = [&](std::string_view text, std::string_view variable) {
    const auto at = word.find(text, from);
    if (at < best.at)
      best = {at, text.size(), variable};
  };
  for (const auto& [text, variable] : runtime_variables)
    consider(text, variable);
  for (const auto& [text, variable] : extra)
    consider(text, variable);
  return best;
}

/// `word` as one shell word: its text single-quoted, each placeholder as
/// its variable in double quotes ("${SLURM_NODEID}").
std::string expanding_word(std::string_view word,
                           const std::vector<std::pair<std::string, std::string>>& extra) {
  std::string out;
  size_t from = 0;
  for (;;) {
    const auto p = next_placeholder(word, from, extra);
    const auto literal = word.substr(from, p.at == std::string_view::npos ? p.at : p.at - from);
    if (!literal.empty())
      out += shell_quote(literal);
    if (p.at == std::string_view::npos)
      break;
    out += "\"${" + std::string(p.variable) + "}\"";
    from = p.at + p.length;
  }
  return out.empty() ? "''" : out;
}

std::string expanding_command(const std::vector<std::string>& argv, size_t from,
                              const std::vector<std::pair<std::string, std::string>>& extra) {
  std::string out;
  for (size_t i = from; i < argv.size(); ++i)
    out += (out.empty() ? "" : " ") + expanding_word(argv[i], extra);
  return out;
}

bool names_rendezvous(const std::vector<std::string>& argv) {
  for (const auto& word : argv)
    if (word.find("{master_addr}") != std::string::npos
        || word.find("{master_port}") != std::string::npos)
      return true;
  return false;
}

// The rendezvous torchrun and torch.distributed need: the batch script runs
// on the job's first node, so a port free here is free where rank 0 listens.
constexpr const char* rendezvous_lines =
  "# The rendezvous: the job's first node, and a port free on it.\n"
  "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" 2>/dev/null | head -n 1) || true\n"
  "export MASTER_ADDR=\"${MASTER_ADDR:-$(hostname)}\"\n"
  "export MASTER_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind((\"\", 0)); "
  "print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + SLURM_JOB_ID % 20000)))\n";

/// What srun runs on each task: the command with the runtime placeholders
/// read on that node, and per GPU the task's ranks.
std::string task_script(const std::vector<std::string>& argv, const batch_layout& layout) {
  std::string inner;
  if (layout.tasks == slurm_tasks::per_gpu)
    inner = "export RANK=\"$SLURM_PROCID\" LOCAL_RANK=\"$SLURM_LOCALID\" "
            "WORLD_SIZE=\"$SLURM_NTASKS\"; ";
  return inner + "exec " + expanding_command(argv, layout.wrapper_words, layout.script_variables);
}

} // namespace

std::string batch_script(const std::vector<std::string>& argv, const std::string& workdir,
                         const std::map<std::string, std::string>& env,
                         const batch_layout& layout) {
  if (argv.size() <= layout.wrapper_words)
    throw input_error("batch script: no command to run");
  for (const auto& [text, variable] : layout.script_variables)
    if (!is_identifier(variable))
      throw input_error("batch script: variable '" + variable + "' for " + text
                        + " is not a shell identifier");
  std::string out = "#!/bin/bash\n"
                    "# Written by paratune: one trial, its command run as these exact words.\n"
                    "set -eu\n";
  if (!workdir.empty())
    out += "cd -- " + shell_quote(workdir) + "\n";
  for (const auto& [name, value] : env) {
    if (!is_identifier(name))
      throw input_error("batch script: environment name '" + name
                        + "' is not a shell identifier ([A-Za-z_][A-Za-z0-9_]*)");
    out += "export " + name + "=" + shell_quote(value) + "\n";
  }
  if (layout.tasks != slurm_tasks::one || names_rendezvous(argv))
    out += rendezvous_lines;
  std::vector<std::string> wrapper(argv.begin(), argv.begin() + long(layout.wrapper_words));
  out += "exec ";
  if (!wrapper.empty())
    out += shell_command(wrapper) + " ";
  if (layout.tasks == slurm_tasks::one)
    return out + expanding_command(argv, layout.wrapper_words, layout.script_variables) + "\n";
  const int per_node = layout.tasks == slurm_tasks::per_gpu ? layout.gpus_per_node : 1;
  return out + "srun --nodes=\"$SLURM_JOB_NUM_NODES\" --ntasks-per-node="
         + std::to_string(per_node) + " --kill-on-bad-exit=1 /bin/bash -c "
         + shell_quote(task_script(argv, layout)) + "\n";
}

} // namespace paratune
