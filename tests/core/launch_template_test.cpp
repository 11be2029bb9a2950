// Launch templates and batch scripts: every value reaches the trial as one
// inert argument, through an argv or through a shell script Slurm runs.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/input_error.hpp"
#include "tests/fixtures/refusal.hpp"
#include "core/launch/batch_script.hpp"
#include "core/launch/launch_template.hpp"
#include "core/shell_quote.hpp"
#include "core/tpu/maxtext_args.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

// What a hostile job name, model path or argument may hold.
const std::vector<std::string> hostile = {
  "'; rm -rf ~",
  "$(touch PWNED_subst)",
  "`touch PWNED_backtick`",
  "a\"b\\c",
  "line one\ntouch PWNED_newline",
  "*",
  "$HOME ${HOME} ~",
  "",
  "--flag=with space",
  "caf\xc3\xa9 \xff",
};


TEST(shell_quote, leaves_plain_words_bare_and_quotes_the_rest) {
  EXPECT_EQ(shell_quote("--tensor-model-parallel-size"), "--tensor-model-parallel-size");
  EXPECT_EQ(shell_quote("/data/llama3/tokenizer.model"), "/data/llama3/tokenizer.model");
  EXPECT_EQ(shell_quote("ici_fsdp_parallelism=-1"), "ici_fsdp_parallelism=-1");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("'; rm -rf ~"), "''\\''; rm -rf ~'");
  EXPECT_EQ(shell_quote("$(x)"), "'$(x)'");
  EXPECT_EQ(shell_command({"echo", "it's", "$HOME"}), "echo 'it'\\''s' '$HOME'");
  EXPECT_EQ(test::refusal([] { shell_quote(std::string("a\0b", 3)); }),
            "a value holds a NUL byte, which a command line cannot carry");
}

launch_values trial_values() {
  launch_values v;
  v.framework_args = {"--tensor-model-parallel-size", "2", "--micro-batch-size", "1"};
  v.trial = 7;
  v.session = "s42";
  v.nodes = 2;
  v.gpus_per_node = 8;
  v.workdir = "/scratch/paratune/s42/7";
  v.relay = "10.0.0.5:5601";
  return v;
}

// One template serves every framework: {framework_args} is the trial's
// framework's arguments; a framework's own name is refused in another's
// trial rather than filled with the wrong arguments.
TEST(launch_template, framework_args_are_the_trials_and_the_other_frameworks_name_is_refused) {
  const auto any = launch_template::parse({"train", "{framework_args}", "--out={workdir}"});
  auto v = trial_values();
  EXPECT_EQ(any.render(v), (std::vector<std::string>{"train", "--tensor-model-parallel-size", "2",
                                                     "--micro-batch-size", "1",
                                                     "--out=/scratch/paratune/s42/7"}));
  v.framework = launch_field::maxtext_args;
  v.framework_title = "MaxText";
  v.framework_args = {"ici_tensor_parallelism=4", "steps=6"};
  EXPECT_EQ(any.render(v), (std::vector<std::string>{"train", "ici_tensor_parallelism=4",
                                                     "steps=6", "--out=/scratch/paratune/s42/7"}));
  EXPECT_EQ(launch_template::parse({"train", "{maxtext_args}"}).render(v),
            (std::vector<std::string>{"train", "ici_tensor_parallelism=4", "steps=6"}));
  EXPECT_EQ(test::refusal([&] { launch_template::parse({"torchrun", "{megatron_args}"}).render(v); }),
            "the launch template names {megatron_args}, but its trials run MaxText: use "
            "{maxtext_args} or {framework_args}");
  // A framework with no placeholder of its own takes {framework_args} only.
  v.framework = launch_field::framework_args;
  v.framework_title = "toytrain";
  EXPECT_EQ(test::refusal([&] { launch_template::parse({"train", "{maxtext_args}"}).render(v); }),
            "the launch template names {maxtext_args}, but its trials run toytrain: use "
            "{framework_args}");
}

TEST(launch_template, renders_a_torchrun_megatron_command) {
  const auto t = launch_template::parse(
      {"torchrun", "--nnodes", "{nodes}", "--nproc-per-node", "{gpus_per_node}",
       "pretrain_gpt.py", "{megatron_args}", "--save={workdir}/ckpt", "--wandb-name",
       "paratune-{session}-{trial}", "{{literal}}"});
  EXPECT_TRUE(t.uses(launch_field::megatron_args));
  EXPECT_FALSE(t.uses(launch_field::maxtext_args));
  EXPECT_EQ(t.render(trial_values()),
            (std::vector<std::string>{"torchrun", "--nnodes", "2", "--nproc-per-node", "8",
                                      "pretrain_gpt.py", "--tensor-model-parallel-size", "2",
                                      "--micro-batch-size", "1",
                                      "--save=/scratch/paratune/s42/7/ckpt", "--wandb-name",
                                      "paratune-s42-7", "{literal}"}));
}

TEST(launch_template, refuses_what_it_cannot_render) {
  EXPECT_EQ(test::refusal([] { launch_template::parse({"run", "{model}"}); }),
            "launch token 2 '{model}': unknown placeholder {model} (known: {framework_args}, {megatron_args}, "
            "{maxtext_args}, {trial}, {session}, {nodes}, {gpus_per_node}, {workdir}, {relay}, "
            "{node_rank}, {master_addr}, {master_port}, {job_id})");
  EXPECT_EQ(test::refusal([] { launch_template::parse({"run", "--args={megatron_args}"}); }),
            "launch token 2 '--args={megatron_args}': {megatron_args} stands for several "
            "arguments and must be a token of its own");
  EXPECT_EQ(test::refusal([] { launch_template::parse({"run", "{trial"}); }),
            "launch token 2 '{trial': a '{' without its '}' (write '{{' for a literal one)");
  EXPECT_EQ(test::refusal([] { launch_template::parse({"run", "x}"}); }),
            "launch token 2 'x}': a '}' without its '{' (write '}}' for a literal one)");
  EXPECT_EQ(test::refusal([] { launch_template::parse({}); }),
            "launch: the template is empty (it needs at least the program)");
  EXPECT_EQ(test::refusal([] { launch_template::parse({"{megatron_args}"}); }),
            "launch token 1: the program cannot be a list of arguments");
}

TEST(launch_template, hostile_values_stay_single_argv_entries) {
  auto v = trial_values();
  v.framework_args = hostile;
  v.session = hostile[0];
  const auto argv = launch_template::parse({"prog", "{megatron_args}", "--name={session}"}).render(v);
  ASSERT_EQ(argv.size(), hostile.size() + 2);
  for (size_t i = 0; i < hostile.size(); ++i)
    EXPECT_EQ(argv[i + 1], hostile[i]);
  EXPECT_EQ(argv.back(), "--name='; rm -rf ~");
  v.workdir = std::string("/tmp/a\0b", 8);
  EXPECT_EQ(test::refusal([&] { launch_template::parse({"prog", "{workdir}"}).render(v); }),
            "launch value {workdir} holds a NUL byte, which no argv can carry");
}

// The script Slurm runs, run here by a real bash: printf prints each of its
// arguments on a line, so the output shows exactly what the trial received,
// and no file appears from the command substitutions.
TEST(batch_script, a_real_bash_passes_every_hostile_value_through_unchanged) {
  const auto dir = test::make_temp_dir("batch-script");
  const auto workdir = dir + "/it's a \"dir\" $(touch PWNED_dir)";
  fs::create_directories(workdir);
  std::vector<std::string> argv = {"/usr/bin/printf", "[%s]\\n"};
  std::string expected;
  for (const auto& h : hostile) {
    argv.push_back(h);
    expected += "[" + h + "]\n";
  }
  argv.push_back("$PARATUNE_JOB_NAME");
  const auto script = batch_script(argv, workdir, {{"PARATUNE_JOB_NAME", "'; rm -rf ~"}});
  const auto path = test::write_file(dir, "trial.sh", script);
  const auto r = test::run_program({"/bin/bash", path});
  ASSERT_EQ(r.status, 0) << r.err << "\n" << script;
  // The literal text $PARATUNE_JOB_NAME, not its value: argv words are never expanded.
  EXPECT_EQ(r.out, expected + "[$PARATUNE_JOB_NAME]\n");
  for (const auto& e : fs::recursive_directory_iterator(dir))
    EXPECT_NE(e.path().filename().string().rfind("PWNED_", 0), 0u) << e.path();
  EXPECT_TRUE(fs::exists(workdir));
  fs::remove_all(dir);
}

TEST(batch_script, runs_in_the_workdir_with_the_environment) {
  const auto dir = test::make_temp_dir("batch-env");
  const auto script = batch_script({"/bin/sh", "-c", "pwd; printf '%s\\n' \"$NAME\""}, dir,
                                   {{"NAME", "a'b $(c)"}});
  const auto r = test::run_program({"/bin/bash", test::write_file(dir, "t.sh", script)});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, fs::canonical(dir).string() + "\na'b $(c)\n");
  EXPECT_EQ(test::refusal([&] { batch_script({"x"}, dir, {{"BAD NAME", "v"}}); }),
            "batch script: environment name 'BAD NAME' is not a shell identifier "
            "([A-Za-z_][A-Za-z0-9_]*)");
  fs::remove_all(dir);
}

TEST(launch_template, runtime_placeholders_stay_placeholders_until_the_job_runs) {
  const auto t = launch_template::parse(
    {"torchrun", "--nnodes={nodes}", "--node-rank", "{node_rank}",
     "--rdzv-endpoint={master_addr}:{master_port}", "--rdzv-id={job_id}", "train.py"});
  launch_values v;
  v.nodes = 4;
  EXPECT_EQ(t.render(v), (std::vector<std::string>{
                           "torchrun", "--nnodes=4", "--node-rank", "{node_rank}",
                           "--rdzv-endpoint={master_addr}:{master_port}", "--rdzv-id={job_id}",
                           "train.py"}));
  EXPECT_EQ(t.runtime_field(), launch_field::node_rank);
  EXPECT_FALSE(launch_template::parse({"prog", "{nodes}"}).runtime_field());
}

/// A stand-in for srun on PATH, for running a batch script here: it starts
/// --ntasks-per-node tasks of its command on $SLURM_JOB_NUM_NODES nodes,
/// one after the other, each with the variables the real srun sets for a
/// task (SLURM_NODEID, SLURM_PROCID, SLURM_LOCALID, SLURM_NTASKS), and
/// prints its own arguments first. The real srun runs in the Slurm tests.
std::string fake_slurm_bin(const std::string& dir) {
  const auto bin = dir + "/bin";
  fs::create_directories(bin);
  const auto srun = test::write_file(bin, "srun", R"(#!/bin/bash
echo "srun $1 $2 $3"
per_node=${2#--ntasks-per-node=}
shift 3
n=0
for node in $(seq 0 $((SLURM_JOB_NUM_NODES - 1))); do
  for local in $(seq 0 $((per_node - 1))); do
    SLURM_NODEID=$node SLURM_PROCID=$n SLURM_LOCALID=$local \
      SLURM_NTASKS=$((SLURM_JOB_NUM_NODES * per_node)) "$@" || exit $?
    n=$((n + 1))
  done
done
)");
  const auto scontrol = test::write_file(bin, "scontrol", "#!/bin/sh\nprintf 'node7\\nnode8\\n'\n");
  for (const auto& p : {srun, scontrol})
    fs::permissions(p, fs::perms::owner_all);
  return bin;
}

test::program_result run_as_job(const std::string& dir, const std::string& script) {
  const auto path = test::write_file(dir, "job.sh", script);
  return test::run_program({"/usr/bin/env", "PATH=" + fake_slurm_bin(dir) + ":/usr/bin:/bin",
                            "SLURM_JOB_ID=4242", "SLURM_JOB_NUM_NODES=2",
                            "SLURM_JOB_NODELIST=node[7-8]", "/bin/bash", path});
}

TEST(batch_script, one_task_per_node_reads_its_rank_and_the_rendezvous_on_the_node) {
  const auto dir = test::make_temp_dir("batch-per-node");
  const std::vector<std::string> argv = {
    "/usr/bin/printf", "rank %s of %s at %s:%s job %s [%s]\\n", "{node_rank}", "2",
    "{master_addr}", "{master_port}", "{job_id}", "'; touch PWNED; echo '$(id)"};
  const auto script = batch_script(argv, dir, {}, {slurm_tasks::per_node, 8, 0});
  EXPECT_NE(script.find("srun --nodes=\"$SLURM_JOB_NUM_NODES\" --ntasks-per-node=1 "
                        "--kill-on-bad-exit=1 /bin/bash -c "),
            std::string::npos) << script;
  const auto r = run_as_job(dir, script);
  ASSERT_EQ(r.status, 0) << r.err << "\n" << script;
  // MASTER_PORT is a port python found free here, or 20000 + 4242 % 20000.
  const auto port_at = r.out.find("node7:") + 6;
  const auto port = r.out.substr(port_at, r.out.find(' ', port_at) - port_at);
  ASSERT_FALSE(port.empty());
  EXPECT_GT(std::stoi(port), 0);
  const auto hostile = "['; touch PWNED; echo '$(id)]";
  EXPECT_EQ(r.out, "srun --nodes=2 --ntasks-per-node=1 --kill-on-bad-exit=1\n"
                   "rank 0 of 2 at node7:" + port + " job 4242 " + hostile + "\n"
                   "rank 1 of 2 at node7:" + port + " job 4242 " + hostile + "\n");
  EXPECT_FALSE(fs::exists(dir + "/PWNED"));
  fs::remove_all(dir);
}

TEST(batch_script, one_task_per_gpu_gets_torchs_ranks_and_a_wrapper_runs_once_around_srun) {
  const auto dir = test::make_temp_dir("batch-per-gpu");
  const std::vector<std::string> argv = {
    "/bin/sh", "-c", "echo wrapper; shift; exec \"$@\"", "relay", "--",
    "/bin/sh", "-c", "echo rank=$RANK local=$LOCAL_RANK world=$WORLD_SIZE node={node_rank}"};
  const auto script = batch_script(argv, dir, {{"NCCL_DEBUG", "WARN"}},
                                   {slurm_tasks::per_gpu, 2, 5});
  const auto r = run_as_job(dir, script);
  ASSERT_EQ(r.status, 0) << r.err << "\n" << script;
  EXPECT_EQ(r.out, "wrapper\n"
                   "srun --nodes=2 --ntasks-per-node=2 --kill-on-bad-exit=1\n"
                   "rank=0 local=0 world=4 node=0\n"
                   "rank=1 local=1 world=4 node=0\n"
                   "rank=2 local=0 world=4 node=1\n"
                   "rank=3 local=1 world=4 node=1\n");
  EXPECT_EQ(test::refusal([&] { batch_script({"relay", "--"}, dir, {}, {slurm_tasks::one, 1, 2}); }),
            "batch script: no command to run");
  fs::remove_all(dir);
}

TEST(batch_script, one_task_sets_the_rendezvous_only_when_the_command_names_it) {
  EXPECT_EQ(batch_script({"prog", "--rank={node_rank}"}, "/w"),
            "#!/bin/bash\n# Written by paratune: one trial, its command run as these exact "
            "words.\nset -eu\ncd -- /w\nexec prog --rank=\"${SLURM_NODEID}\"\n");
  EXPECT_NE(batch_script({"prog", "{master_port}"}, "/w").find("export MASTER_PORT="),
            std::string::npos);
}

// MaxText 32B on v5p-128 as configs/v5p/32b.sh runs it: FSDP 16 x tensor 4,
// per-device batch 6, remat minimal (data/perf/maxtext_tpu_mfu_published.csv).
TEST(maxtext_args, renders_the_mesh_and_step_as_maxtext_names_them) {
  maxtext_launch l;
  l.model.layers = 32; l.model.hidden = 8192; l.model.heads = 64; l.model.kv_heads = 64;
  l.model.head_dim = 128; l.model.ffn = 28672; l.model.vocab = 32000;
  l.model.swiglu = true; l.model.position = position_embedding::rope;
  l.model.bias_linear = false;
  l.ici = parse_mesh("fsdp=16,model=4");
  l.dcn = parse_mesh("data=1");
  l.chips = 64;
  l.workload.global_batch = 384;
  l.workload.seq_len = 2048;
  l.workload.remat = remat_policy::minimal;
  EXPECT_EQ(render_maxtext_args(l),
            (std::vector<std::string>{
                "ici_data_parallelism=1", "ici_fsdp_parallelism=16",
                "ici_context_parallelism=1", "ici_tensor_parallelism=4",
                "ici_expert_parallelism=1", "dcn_data_parallelism=1", "dcn_fsdp_parallelism=1",
                "dcn_context_parallelism=1", "dcn_tensor_parallelism=1",
                "dcn_expert_parallelism=1", "per_device_batch_size=6", "max_target_length=2048",
                "gradient_accumulation_steps=1", "remat_policy=minimal", "base_emb_dim=8192",
                "base_num_query_heads=64", "base_num_kv_heads=64", "head_dim=128",
                "base_mlp_dim=28672", "base_num_decoder_layers=32", "vocab_size=32000",
                // No MaxText model file is named: every architecture key
                // (core/tpu/maxtext_architecture.hpp).
                "decoder_block=llama2", "mlp_activations=[silu,linear]",
                "normalization_layer_epsilon=1e-05", "rope_max_timescale=10000",
                "attention_bias=false", "use_qk_norm=false", "logits_via_embedding=false",
                "normalize_embedding_logits=false", "enable_dropout=false"}));
  l.workload.global_batch = 32; // half a sequence per chip
  EXPECT_EQ(render_maxtext_args(l)[10], "per_device_batch_size=0.5");
}

} // namespace
} // namespace paratune
