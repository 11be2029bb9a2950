// The production batch script `export --format sbatch` writes.

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "core/launch/production_batch.hpp"

namespace paratune {
namespace {

production_batch_request simulated_best() {
  production_batch_request r;
  r.session = "s20261129T000000-abcd";
  r.job_name = "llama3 8b";
  r.trial = 6;
  r.pool = "sim";
  r.nodes = 2;
  r.gpus_per_node = 8;
  r.framework_args = {"--num-layers", "32", "--tensor-model-parallel-size", "2"};
  r.environment = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  r.secret_names = {"HF_TOKEN", "not a name"};
  return r;
}

TEST(production_batch, a_pool_without_a_template_gets_torchrun_on_each_node) {
  const auto s = production_batch_script(simulated_best());
  for (const char* line :
       {"#SBATCH --job-name=llama3-8b\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\nset -eu\n",
        "export MEGATRON_LM=\"${MEGATRON_LM:-FILL-IN}\"\n",
        "for name in MEGATRON_LM DATA_PATH TOKENIZER_MODEL CHECKPOINT_DIR TRAIN_ITERS; do\n",
        "export CUDA_DEVICE_MAX_CONNECTIONS=1\n",
        "srun --nodes=\"$SLURM_JOB_NUM_NODES\" --ntasks-per-node=1 --kill-on-bad-exit=1 ",
        "/bin/bash -c 'exec torchrun --nnodes 2 --nproc-per-node 8 --node-rank \"${SLURM_NODEID}\" "
        "--master-addr \"${MASTER_ADDR}\" --master-port \"${MASTER_PORT}\" "
        "\"${MEGATRON_LM}\"/pretrain_gpt.py --num-layers 32 --tensor-model-parallel-size 2 "
        "--data-path \"${DATA_PATH}\" --tokenizer-model \"${TOKENIZER_MODEL}\" --tokenizer-type "
        "\"${TOKENIZER_TYPE}\" --save \"${CHECKPOINT_DIR}\" --load \"${CHECKPOINT_DIR}\" "
        "--train-iters \"${TRAIN_ITERS}\"'\n",
        "# HF_TOKEN. Export them"})
    EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
  EXPECT_EQ(s.find("not a name"), std::string::npos) << s;
  EXPECT_EQ(s.find("#SBATCH --partition"), std::string::npos) << s;
}

TEST(production_batch, a_scheduler_value_that_would_open_another_directive_is_refused) {
  auto r = simulated_best();
  r.partition = "gpu\n#SBATCH --uid=0";
  try {
    (void)production_batch_script(r);
    FAIL() << "accepted a newline in the partition";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "sbatch export: the pool's partition 'gpu\n#SBATCH --uid=0' holds a space or a "
              "control character; an #SBATCH line cannot carry it");
  }
}

} // namespace
} // namespace paratune
