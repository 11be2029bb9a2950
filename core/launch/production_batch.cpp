#include "core/launch/production_batch.hpp"

#include <cctype>
#include <map>

#include "core/input_error.hpp"
#include "core/launch/batch_script.hpp"
#include "core/launch/launch_template.hpp"
#include "core/shell_quote.hpp"
#include "core/text.hpp"

namespace paratune {

namespace {

/// The value every placeholder starts with; the script refuses to run
/// while one still holds it.
constexpr const char* fill_in = "FILL-IN";

/// The directory of Megatron-LM's checkout, for the default launch.
constexpr production_path megatron_lm_path{"MEGATRON_LM", "{megatron_lm}", "",
                                           "your Megatron-LM checkout (it holds pretrain_gpt.py)"};

/// A scheduler value as one #SBATCH word: a newline would open another
/// directive, a space would end the word.
std::string sbatch_word(const std::string& option, const std::string& value) {
  for (const unsigned char c : value)
    if (c < 0x20 || c == 0x7f || c == ' ')
      throw input_error("sbatch export: the pool's " + option + " '" + value
                        + "' holds a space or a control character; an #SBATCH line cannot carry it");
  return value;
}

/// The job's name as sbatch's --job-name: letters, digits, '.', '_', '-'.
std::string job_name_word(const std::string& name) {
  std::string out;
  for (const char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c
                                                                                              : '-';
  return out.empty() ? "paratune-best" : out;
}

std::string sbatch_lines(const production_batch_request& r) {
  const int tasks_per_node = r.tasks == slurm_tasks::per_gpu ? r.gpus_per_node : 1;
  std::string out = "#SBATCH --job-name=" + job_name_word(r.job_name) + "\n"
                    + "#SBATCH --nodes=" + std::to_string(r.nodes) + "\n"
                    + "#SBATCH --ntasks-per-node=" + std::to_string(tasks_per_node) + "\n";
  const std::pair<const char*, const std::string*> options[] = {
    {"partition", &r.partition}, {"account", &r.account}, {"qos", &r.qos},
    {"constraint", &r.constraint}, {"gres", &r.gres}};
  for (const auto& [option, value] : options)
    if (!value->empty())
      out += std::string("#SBATCH --") + option + "=" + sbatch_word(option, *value) + "\n";
  if (r.exclusive)
    out += "#SBATCH --exclusive\n";
  if (r.time_limit_minutes > 0)
    out += "#SBATCH --time=" + std::to_string(r.time_limit_minutes) + "\n";
  return out;
}

std::string placeholder_lines(bool default_launch) {
  std::string out =
    "\n# ---- FILL-IN: what a production run needs and a tuning run did not -------\n"
    "# Replace each FILL-IN below, or set the variable in the environment you run\n"
    "# sbatch from (sbatch passes it to the job). The script stops while one is left.\n";
  std::vector<production_path> paths = production_paths();
  if (default_launch)
    paths.insert(paths.begin(), megatron_lm_path);
  std::string names;
  for (const auto& p : paths) {
    // Exported: srun's tasks run the command in a shell of their own.
    out += "# " + std::string(p.variable) + ": " + p.what + "\n" + "export " + p.variable
           + "=\"${" + p.variable + ":-" + fill_in + "}\"\n";
    names += std::string(names.empty() ? "" : " ") + p.variable;
  }
  out += "# TOKENIZER_TYPE: Megatron-LM's --tokenizer-type for TOKENIZER_MODEL\n"
         "export TOKENIZER_TYPE=\"${TOKENIZER_TYPE:-HuggingFaceTokenizer}\"\n"
         "for name in " + names + "; do\n"
         "  if [ \"${!name}\" = " + fill_in + " ]; then\n"
         "    echo \"error: $name is still FILL-IN: set it in this script or in the environment\" >&2\n"
         "    exit 2\n"
         "  fi\n"
         "done\n"
         "# -----------------------------------------------------------------------------\n";
  return out;
}

/// The flags the placeholders fill, after the configuration's own.
std::vector<std::string> production_data_args() {
  std::vector<std::string> out;
  for (const auto& p : production_paths()) {
    out.push_back(p.flag);
    out.push_back(p.placeholder);
    if (std::string(p.flag) == "--tokenizer-model") {
      out.push_back("--tokenizer-type");
      out.push_back("{tokenizer_type}");
    }
    if (std::string(p.flag) == "--save") { // resume from where the last run saved
      out.push_back("--load");
      out.push_back(p.placeholder);
    }
  }
  return out;
}

/// The template's stand-ins for data a tuning run does without.
std::vector<std::string> without_mock_data(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--mock-data")
      continue;
    if (argv[i] == "--tokenizer-type" && i + 1 < argv.size() && argv[i + 1] == "NullTokenizer") {
      ++i;
      continue;
    }
    out.push_back(argv[i]);
  }
  return out;
}

} // namespace

const std::vector<production_path>& production_paths() {
  static const std::vector<production_path> paths = {
    {"DATA_PATH", "{data_path}", "--data-path",
     "your tokenized dataset's prefix, as preprocess_data.py wrote it (--data-path)"},
    {"TOKENIZER_MODEL", "{tokenizer_model}", "--tokenizer-model",
     "your tokenizer, a Hugging Face name or directory (--tokenizer-model)"},
    {"CHECKPOINT_DIR", "{checkpoint_dir}", "--save",
     "where checkpoints are saved (--save), and loaded from on a restart (--load)"},
    {"TRAIN_ITERS", "{train_iters}", "--train-iters",
     "how many iterations the run trains (--train-iters)"},
  };
  return paths;
}

std::string production_batch_script(const production_batch_request& r) {
  auto args = r.framework_args;
  const auto data = production_data_args();
  args.insert(args.end(), data.begin(), data.end());
  const bool default_launch = r.launch.empty();
  std::vector<std::string> argv;
  batch_layout layout;
  layout.gpus_per_node = r.gpus_per_node;
  if (default_launch) {
    // torchrun on each node: the rendezvous the batch script sets up.
    layout.tasks = slurm_tasks::per_node;
    argv = {"torchrun",      "--nnodes",      std::to_string(r.nodes), "--nproc-per-node",
            std::to_string(r.gpus_per_node), "--node-rank", "{node_rank}",
            "--master-addr", "{master_addr}", "--master-port",         "{master_port}",
            "{megatron_lm}/pretrain_gpt.py"};
    argv.insert(argv.end(), args.begin(), args.end());
  } else {
    layout.tasks = r.tasks;
    launch_values v;
    v.framework_args = args;
    v.trial = r.trial;
    v.session = r.session;
    v.nodes = r.nodes;
    v.gpus_per_node = r.gpus_per_node;
    v.workdir = ".";  // the directory sbatch was run from
    argv = without_mock_data(launch_template::parse(r.launch).render(v));
  }
  layout.script_variables = {{"{tokenizer_type}", "TOKENIZER_TYPE"}};
  for (const auto& p : production_paths())
    layout.script_variables.emplace_back(p.placeholder, p.variable);
  if (default_launch)
    layout.script_variables.emplace_back(megatron_lm_path.placeholder, megatron_lm_path.variable);
  const std::map<std::string, std::string> env(r.environment.begin(), r.environment.end());
  const auto body = batch_script(argv, "", env, layout);
  const std::string set_eu = "set -eu\n";
  const auto rest = body.substr(body.find(set_eu) + set_eu.size());

  std::string out = "#!/bin/bash\n"
                    "# The production run of trial " + std::to_string(r.trial) + " of paratune session "
                    + r.session + " (job " + job_name_word(r.job_name) + "), the session's best,\n"
                    "# as its pool '" + job_name_word(r.pool) + "' launched it: "
                    + (default_launch ? std::string("torchrun on each node (the pool had no launch "
                                                    "template)")
                                      : "its launch template, tasks: " + std::string(to_string(r.tasks)))
                    + ".\n# Written by `paratune export " + r.session + " --format sbatch`; submit "
                    "it with sbatch once the FILL-IN lines are set.\n";
  std::vector<std::string> secrets;
  for (const auto& name : r.secret_names)
    if (is_identifier(name))
      secrets.push_back(name);
  if (!secrets.empty())
    out += "# Secrets the trials took from paratune's environment, named here and never written:\n"
           "# " + join(secrets, " ") + ". Export them before sbatch, which passes your environment.\n";
  out += sbatch_lines(r) + set_eu + placeholder_lines(default_launch) + rest;
  return out;
}

} // namespace paratune
