#!/usr/bin/env python3
"""GPU-hours a tuning session spends with early stopping against full-length
trials, for the same final result (issue 10's target: at most half).

Runs `paratune tune` on the simulated cluster for each seed twice, the job
identical but for its `early_stop:` block, and compares
  - the session's GPU-hours (the sum over trials of their logged iterations'
    simulated times x the GPUs), and
  - the final result: the hidden ground truth (paratune-sim --evaluate) of
    the best configuration each session found.

usage: bench/early_stop/gpu_hours.py [--build build] [--seeds 1,2,3,4,5] [--trials 20]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

JOB = """name: llama3-8b-a100x8-gpu-hours
model: llama3-8b
cluster: dgx-a100-80g
nodes: 1
precision: fp16
initial: {{tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}}
trials: {trials}
simulation: {{seed: {seed}, train_iters: {iters}}}
"""
EARLY_STOP = "early_stop: {warmup: 2, stable_after: 4, tolerance: 0.05, rung: true}\n"


def tune(build, workdir, name, text):
    job = os.path.join(workdir, name + ".yaml")
    with open(job, "w") as f:
        f.write(text)
    out = subprocess.run([os.path.join(build, "bin", "paratune"), "tune", job, "--db",
                          os.path.join(workdir, name + "-pool"), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def truth(build, session, seed):
    """The simulated cluster's hidden truth (drawn from the seed) for the
    session's best configuration."""
    args = session["best"]["megatron_args"]
    out = subprocess.run([os.path.join(build, "bin", "paratune-sim"), "--sim-world-size", "8",
                          "--sim-seed", str(seed), "--evaluate", "--json"] + args,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["tflops_per_gpu"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--seeds", default="1,2,3,4,5")
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--iters", type=int, default=40, help="iterations of a full-length trial")
    a = p.parse_args()
    os.environ.setdefault("PARATUNE_CONFIGS",
                          os.path.join(os.path.dirname(__file__), "..", "..", "configs"))
    print("| seed | GPU-hours full | GPU-hours early stop | ratio | best truth full (TFLOP/s/GPU) "
          "| best truth early stop | trials stopped |")
    print("|---|---|---|---|---|---|---|")
    sums = [0.0, 0.0]
    for seed in [int(s) for s in a.seeds.split(",")]:
        with tempfile.TemporaryDirectory() as d:
            base = JOB.format(trials=a.trials, seed=seed, iters=a.iters)
            full = tune(a.build, d, "full", base)
            early = tune(a.build, d, "early", base + EARLY_STOP)
            stopped = sum(1 for t in early["trials"] if t["status"] == "stopped")
            sums[0] += full["gpu_hours"]
            sums[1] += early["gpu_hours"]
            print(f"| {seed} | {full['gpu_hours']:.1f} | {early['gpu_hours']:.1f} | "
                  f"{early['gpu_hours'] / full['gpu_hours']:.2f} | {truth(a.build, full, seed):.1f} | "
                  f"{truth(a.build, early, seed):.1f} | {stopped}/{len(early['trials'])} |")
    print(f"\nall seeds: {sums[1]:.1f} / {sums[0]:.1f} GPU-hours = {sums[1] / sums[0]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
