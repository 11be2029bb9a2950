// core/trial_environment and core/secret_env: what a trial's environment
// holds, which names are secrets, and which `env:` maps are refused.

#include <gtest/gtest.h>

#include "core/secret_env.hpp"
#include "core/trial_environment.hpp"

namespace paratune {
namespace {

const env_list trial_env_daemon_vars{{"PATH", "/usr/local/bin:/usr/bin"},
                          {"HOME", "/home/tuner"},
                          {"USER", "tuner"},
                          {"LANG", "C.UTF-8"},
                          {"LC_NUMERIC", "de_DE.UTF-8"},
                          {"TERM", "xterm-256color"},
                          {"OPENAI_API_KEY", "sk-live-4f2a9c"},
                          {"SLURM_JWT", "eyJhbGciOiJIUzI1NiJ9.e30.c2ln"},
                          {"LD_PRELOAD", "/tmp/evil.so"},
                          {"PARATUNE_CONFIGS", "/opt/paratune/configs"},
                          {"SSH_AUTH_SOCK", "/tmp/ssh-agent.sock"}};

TEST(trial_environment, base_variables_then_pool_job_and_framework_and_never_a_secret) {
  trial_env_sources from;
  from.inherited = trial_env_daemon_vars;
  from.pool = {{"NCCL_IB_HCA", "mlx5_0"}, {"SHARED", "pool"}, {"PATH", "/opt/pool/bin"}};
  from.job = {{"SHARED", "job"}, {"HF_HOME", "/scratch/hf"}, {"PYTHONUNBUFFERED", "0"}};
  from.framework = framework_environment(4, 1, false, trial_env_daemon_vars);
  from.secrets = {"OPENAI_API_KEY", "SLURM_JWT"};
  const env_list expected{{"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
                          {"HF_HOME", "/scratch/hf"},
                          {"HOME", "/home/tuner"},
                          {"LANG", "C.UTF-8"},
                          {"LC_NUMERIC", "de_DE.UTF-8"},
                          {"NCCL_IB_HCA", "mlx5_0"},
                          {"PATH", "/opt/pool/bin"},
                          {"PYTHONUNBUFFERED", "1"},
                          {"SHARED", "job"},
                          {"USER", "tuner"}};
  EXPECT_EQ(trial_environment(from), expected);
}

TEST(trial_environment, a_secret_named_by_a_pool_or_job_is_still_left_out) {
  trial_env_sources from;
  from.inherited = {{"PATH", "/usr/bin"}, {"HOME", "/root"}};
  from.pool = {{"HF_TOKEN", "hf_abcdefgh"}};
  from.job = {{"HOME", "/home/other"}};
  from.secrets = {"HF_TOKEN", "HOME"};
  EXPECT_EQ(trial_environment(from), (env_list{{"PATH", "/usr/bin"}}));
}

TEST(trial_environment, base_names_are_the_documented_list) {
  for (const char* name : {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ",
                           "TMPDIR"})
    EXPECT_TRUE(is_base_env_name(name)) << name;
  for (const char* name : {"TERM", "LC_", "LD_LIBRARY_PATH", "LD_PRELOAD", "SHELL", "PWD",
                           "SLURM_JWT", "CUDA_VISIBLE_DEVICES", "path"})
    EXPECT_FALSE(is_base_env_name(name)) << name;
}

TEST(trial_environment, framework_variables_follow_the_configuration) {
  EXPECT_EQ(framework_environment(1, 1, false, trial_env_daemon_vars),
            (env_list{{"PYTHONUNBUFFERED", "1"}}));
  EXPECT_EQ(framework_environment(1, 2, false, trial_env_daemon_vars),
            (env_list{{"PYTHONUNBUFFERED", "1"}, {"CUDA_DEVICE_MAX_CONNECTIONS", "1"}}));
  EXPECT_EQ(framework_environment(8, 1, true, trial_env_daemon_vars),
            (env_list{{"PYTHONUNBUFFERED", "1"},
                      {"CUDA_DEVICE_MAX_CONNECTIONS", "1"},
                      {"PARATUNE_CONFIGS", "/opt/paratune/configs"}}));
}

TEST(secret_env, names_come_from_slurm_the_reasoners_the_pools_and_both_configs) {
  job_spec job;
  job.secret_env = {"HF_TOKEN"};
  job.reasoner = agent_reasoners{};
  job.reasoner->shared.api_key_env = "JOB_LLM_KEY";
  job.reasoner->overrides[reasoning_agent::failure_analysis].api_key_env = "FAILURE_LLM_KEY";
  pool_spec rest;
  rest.name = "h100";
  rest.token_env = "H100_JWT";
  job.pools = {rest};
  agent_reasoners daemon;
  daemon.shared.api_key_env = "OPENAI_API_KEY";
  EXPECT_EQ(secret_env_names(job, daemon, {"WANDB_API_KEY"}),
            (std::set<std::string>{"FAILURE_LLM_KEY", "H100_JWT", "HF_TOKEN", "JOB_LLM_KEY",
                                   "OPENAI_API_KEY", "SLURM_JWT", "WANDB_API_KEY"}));
  EXPECT_EQ(process_secret_env_names(daemon, {}),
            (std::set<std::string>{"OPENAI_API_KEY", "SLURM_JWT"}));
}

TEST(secret_env, an_env_map_naming_a_secret_or_a_bad_name_is_refused_in_words) {
  job_spec job;
  job.env = {{"NCCL_DEBUG", "WARN"}};
  pool_spec p;
  p.name = "a100";
  p.env = {{"OPENAI_API_KEY", "x"}};
  job.pools = {p};
  const std::set<std::string> secrets{"OPENAI_API_KEY", "SLURM_JWT"};
  EXPECT_EQ(job_env_error(job, secrets),
            "pool 'a100': field 'env': OPENAI_API_KEY is a secret (SLURM_JWT, a reasoner's "
            "api_key_env, a pool's token_env or secret_env) and is never passed to a trial");
  job.pools.clear();
  EXPECT_EQ(job_env_error(job, secrets), std::nullopt);
  job.env["9LIVES"] = "x";
  EXPECT_EQ(job_env_error(job, secrets),
            "field 'env': '9LIVES' is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(env_map_error({{"A", std::string("x\0y", 3)}}, "field 'env'", {}),
            "field 'env': the value of A holds a NUL byte");
}

} // namespace
} // namespace paratune
