#!/usr/bin/env bash
# Captures real measurements on one lent GPU (issue 28): Megatron-LM's own logs
# for a ~1.1B Llama-shaped model under six-plus configurations, a Kineto trace
# of one of them, a JAX XSpace with wall-clock step times, and the machine's
# description. Run from the repository root on the device machine, with a
# checkout of NVIDIA/Megatron-LM at d98e8a64 (the commit data/h100_1gpu/ ran;
# its pretrain_gpt.py and megatron/ are what is used): in the ignored folder
# .gpu-run/megatron-lm, named in the device tool's carry, or wherever
# MEGATRON_LM points. It is never committed.
#   OUT=/some/dir [MEGATRON_LM=DIR] tools/gpu-capture/capture.sh [BUDGET_SECONDS]
# RUNSET=first (default), second or long picks the runs (see capture_second);
# MAXTEXT=DIR names a MaxText checkout (src/maxtext) for the second set's probe.
# SKIP_JAX=1 / SKIP_FALLBACK=1 leave out the JAX step and the plain-PyTorch
# trace (the second run of 2026-11-27 used both; the second machine ran
# RUNSET=second, then RUNSET=long RUN_LIMIT=200).
# Everything lands in $OUT as at most eight files, since that is what the
# device tool brings back.
set -u
budget=${1:-400}
start=$SECONDS
here=$(cd "$(dirname "$0")" && pwd)
mlm=${MEGATRON_LM:-$PWD/.gpu-run/megatron-lm}
out=${OUT:?OUT must name the folder to fill}
if [[ ! -d $out ]]; then
  echo "capture.sh: OUT=$out is not a folder" >&2
  exit 2
fi
if [[ ! -f $mlm/pretrain_gpt.py ]]; then
  echo "capture.sh: no Megatron-LM checkout at $mlm (pretrain_gpt.py missing); set MEGATRON_LM" >&2
  exit 2
fi
work=/tmp/capture
rm -rf "$work" && mkdir -p "$work/megatron" "$work/jax"
left() { echo $((budget - (SECONDS - start))); }
say() { echo "[capture +$((SECONDS - start))s] $*"; }

{
  date -u +%Y-%m-%dT%H:%M:%SZ
  uname -a
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv
  nvidia-smi -q -d CLOCK,POWER,MEMORY,PERFORMANCE 2>&1 | head -120
  python3 - <<'PY'
import sys, torch
print("python", sys.version.split()[0])
print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())
p = torch.cuda.get_device_properties(0)
print("device", p.name, "sm", p.multi_processor_count, "mem_MiB", p.total_memory // 2**20, "cc", f"{p.major}.{p.minor}")
try:
    import jax; print("jax", jax.__version__)
except Exception as e: print("jax import failed:", e)
for mod in ("transformer_engine", "apex", "flash_attn"):
    try: __import__(mod); print(mod, "present")
    except Exception: print(mod, "absent")
PY
} > "$work/env.txt" 2>&1
say "environment written"

# Megatron-LM's dataset helpers: its Makefile asks python3-config for the
# extension suffix, which a virtual environment may not have.
shim=$work/bin && mkdir -p "$shim"
if ! command -v python3-config >/dev/null; then
  suffix=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
  printf '#!/bin/sh\necho %s\n' "$suffix" > "$shim/python3-config" && chmod +x "$shim/python3-config"
fi
export PATH=$shim:$PATH
make -C "$mlm/megatron/core/datasets" > "$work/megatron/helpers_build.txt" 2>&1 || say "helpers build failed (see helpers_build.txt)"

export PYTHONPATH=$mlm:$here/megatron_shims${PYTHONPATH:+:$PYTHONPATH}
export CUDA_DEVICE_MAX_CONNECTIONS=1 PYTHONUNBUFFERED=1 OMP_NUM_THREADS=4

# TinyLlama-1.1B's shape (22 layers, hidden 2048, 32 heads, 4 KV groups, SwiGLU
# 5632, vocab 32000). No Transformer Engine or Apex there: the local transformer
# implementation, torch norms, torch AdamW, unfused attention.
model=(--num-layers 22 --hidden-size 2048 --ffn-hidden-size 5632 --num-attention-heads 32
  --group-query-attention --num-query-groups 4 --max-position-embeddings 4096
  --position-embedding-type rope --rotary-base 10000 --normalization RMSNorm --norm-epsilon 1e-5
  --swiglu --disable-bias-linear --untie-embeddings-and-output-weights
  --attention-dropout 0.0 --hidden-dropout 0.0 --init-method-std 0.02)
train=(--bf16 --transformer-impl local --no-masked-softmax-fusion --no-gradient-accumulation-fusion
  --no-rope-fusion --no-persist-layer-norm --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1
  --global-batch-size 8 --train-iters 16 --lr 3e-4 --min-lr 3e-5 --lr-decay-style cosine
  --lr-warmup-iters 2 --weight-decay 0.1 --clip-grad 1.0 --adam-beta2 0.95 --seed 1234
  --mock-data --tokenizer-type NullTokenizer --vocab-size 32000 --eval-iters 0
  --eval-interval 1000 --log-interval 1 --log-throughput --distributed-backend nccl)
extra_fallback=(--no-bias-swiglu-fusion --no-bias-dropout-fusion)
fallback=0
port=29510
run_limit=${RUN_LIMIT:-150}  # seconds one Megatron-LM run may take

run_megatron() {  # name, then the configuration's own arguments
  local name=$1; shift
  if (( $(left) < 75 )); then say "skip $name: $(left)s left"; return; fi
  local args=("${model[@]}" "${train[@]}" "$@")
  (( fallback )) && args+=("${extra_fallback[@]}")
  printf '%q ' torchrun --nproc_per_node 1 --master_addr 127.0.0.1 --master_port $((port + 1)) pretrain_gpt.py "${args[@]}" > "$work/megatron/$name.cmd"
  say "megatron $name"
  port=$((port + 1))
  (cd "$mlm" && timeout -k 5 $(( $(left) < run_limit + 10 ? $(left) - 10 : run_limit )) \
     python3 -m torch.distributed.run --nproc_per_node 1 --master_addr 127.0.0.1 --master_port $port \
     pretrain_gpt.py "${args[@]}") > "$work/megatron/$name.log" 2>&1
  local rc=$?
  echo "exit $rc" >> "$work/megatron/$name.log"
  say "megatron $name exit $rc: $(grep -m1 -o 'throughput per GPU (TFLOP/s/GPU): [0-9.]*' "$work/megatron/$name.log" | tail -1) $(grep -m1 -o 'max allocated: [0-9.]*' "$work/megatron/$name.log")"
  return $rc
}

capture_first() {
  # The first run carries the profiler; if it fails for anything but memory,
  # the rest run without the torch.compile'd fusions.
  if ! run_megatron s2048_mbs2_none --seq-length 2048 --micro-batch-size 2 \
       --profile --use-pytorch-profiler --profile-step-start 12 --profile-step-end 14 \
       --tensorboard-dir "$work/megatron/tb"; then
    if ! grep -q "OutOfMemory\|out of memory" "$work/megatron/s2048_mbs2_none.log"; then
      fallback=1
      mv "$work/megatron/s2048_mbs2_none.log" "$work/megatron/s2048_mbs2_none.first_try.log"
      run_megatron s2048_mbs2_none --seq-length 2048 --micro-batch-size 2 \
        --profile --use-pytorch-profiler --profile-step-start 12 --profile-step-end 14 \
        --tensorboard-dir "$work/megatron/tb"
    fi
  fi
  run_megatron s2048_mbs1_none --seq-length 2048 --micro-batch-size 1
  run_megatron s2048_mbs4_none --seq-length 2048 --micro-batch-size 4
  run_megatron s2048_mbs4_selective --seq-length 2048 --micro-batch-size 4 --recompute-activations
  run_megatron s2048_mbs4_full --seq-length 2048 --micro-batch-size 4 \
    --recompute-granularity full --recompute-method uniform --recompute-num-layers 1

  if [[ -z ${SKIP_JAX:-} ]] && (( $(left) > 70 )); then
    say "jax"
    timeout -k 5 $(( $(left) < 120 ? $(left) - 10 : 120 )) python3 "$here/jax_step.py" "$work/jax" \
      > "$work/jax/run.log" 2>&1
    say "jax exit $?"
  fi

  run_megatron s4096_mbs2_selective --seq-length 4096 --micro-batch-size 2 --recompute-activations
  run_megatron s2048_mbs8_none --seq-length 2048 --micro-batch-size 8

  if [[ -z ${SKIP_FALLBACK:-} ]] && ! ls "$work"/megatron/torch_profile/*.json.gz >/dev/null 2>&1 && (( $(left) > 40 )); then
    say "no Megatron trace: plain PyTorch fallback"
    timeout 60 python3 "$here/torch_fallback.py" "$work/kineto_fallback" > "$work/megatron/torch_fallback.log" 2>&1
    gzip -f "$work"/kineto_fallback/*.json 2>/dev/null
  fi
}

# The second set (2026-11-27, second lent machine): where the first set's model
# stops fitting (a real out-of-memory at micro-batch 8), a second, wider shape
# (Llama-2-7B's layer, 8 of its 32 layers) so the time model is checked off the
# TinyLlama shape, other sequence lengths, and a probe of MaxText on the GPU.
capture_second() {
  run_megatron s2048_mbs8_none --seq-length 2048 --micro-batch-size 8
  local wide=(--hidden-size 4096 --ffn-hidden-size 11008 --num-query-groups 32 --num-layers 8)
  run_megatron l7b8_s2048_mbs1_none "${wide[@]}" --seq-length 2048 --micro-batch-size 1
  run_megatron l7b8_s2048_mbs2_none "${wide[@]}" --seq-length 2048 --micro-batch-size 2
  run_megatron l7b8_s2048_mbs4_selective "${wide[@]}" --seq-length 2048 --micro-batch-size 4 --recompute-activations
  run_megatron l7b8_s2048_mbs4_full "${wide[@]}" --seq-length 2048 --micro-batch-size 4 \
    --recompute-granularity full --recompute-method uniform --recompute-num-layers 1
  run_megatron s1024_mbs8_none --seq-length 1024 --micro-batch-size 8
  capture_long
  if [[ -n ${MAXTEXT:-} && -d $MAXTEXT/src/maxtext ]] && (( $(left) > 60 )); then
    say "maxtext probe"
    mkdir -p "$work/maxtext"
    (cd "$MAXTEXT/src" && timeout -k 5 $(( $(left) < 120 ? $(left) - 10 : 120 )) \
       python3 -m maxtext.trainers.pre_train.train maxtext/configs/base.yml run_name=probe \
       base_output_directory="$work/maxtext/out" hardware=gpu dataset_type=synthetic steps=12 \
       per_device_batch_size=4 max_target_length=1024 enable_checkpointing=false attention=dot_product \
       enable_tensorboard=false profiler=xplane skip_first_n_steps_for_profiler=8 profiler_steps=2 \
       log_period=1) > "$work/maxtext/run.log" 2>&1
    echo "exit $?" >> "$work/maxtext/run.log"
    say "maxtext exit: $(tail -1 "$work/maxtext/run.log")"
  fi
}

# Sequence 8192 needs more than the 150 s a run gets by default: the second
# machine ran this part alone with RUN_LIMIT=200.
capture_long() {
  run_megatron s2048_mbs2_full --seq-length 2048 --micro-batch-size 2 \
    --recompute-granularity full --recompute-method uniform --recompute-num-layers 1
  run_megatron s8192_mbs1_selective --seq-length 8192 --max-position-embeddings 8192 \
    --micro-batch-size 1 --recompute-activations
}

case ${RUNSET:-first} in
  first) capture_first ;;
  second) capture_second ;;
  long) capture_long ;;
  *) echo "capture.sh: RUNSET is first, second or long, not ${RUNSET}" >&2; exit 2 ;;
esac

cp "$work/env.txt" "$out/"
for f in "$work"/megatron/torch_profile/rank-0.json.gz "$work"/kineto_fallback/*.json.gz; do
  [[ -f $f ]] && cp "$f" "$out/kineto_$(basename "$f")"
done
tar -czf "$out/megatron_logs.tar.gz" -C "$work/megatron" --exclude torch_profile --exclude tb .
xplane=$(find "$work/jax/trace" -name '*.xplane.pb' 2>/dev/null | head -1)
[[ -n $xplane ]] && gzip -c "$xplane" > "$out/jax_step.xplane.pb.gz"
cp "$work/jax/steps.json" "$out/jax_steps.json" 2>/dev/null
cp "$work/jax/run.log" "$out/jax_run.log" 2>/dev/null
if [[ -d $work/maxtext ]]; then
  xplane=$(find "$work/maxtext/out" -name '*.xplane.pb' 2>/dev/null | head -1)
  [[ -n $xplane ]] && gzip -c "$xplane" > "$out/maxtext_gpu.xplane.pb.gz"
  cp "$work/maxtext/run.log" "$out/maxtext_run.log"
fi
ls -la "$out"
say "done"
