#!/usr/bin/env python3
"""Wall-clock time to the best configuration with 4 concurrent trial slots
against 1, at the same trial budget and the same final quality (issue 10's
target: at least 3 times faster).

For each seed it runs `paratune tune` on the simulated cluster twice, the
job identical but for its pool's capacity (1 or 4), and reads from
`tune --json`:
  - time to best: from the first trial's start to the end of the trial that
    measured the session's best throughput;
  - time to quality: from the first trial's start to the end of the first
    trial within 1% of the 1-slot session's best (what a user waits for);
  - the session's wall clock (first start to last end);
  - the final result: the simulated cluster's hidden truth
    (paratune-sim --evaluate) for each session's best configuration.

usage: bench/fanout/slots.py [--build build] [--seeds 1,2,3,4,5] [--trials 16]
                             [--time-scale 0.01]
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile

JOB = """name: llama3-8b-a100x8-slots{slots}
model: llama3-8b
cluster: dgx-a100-80g
nodes: 1
precision: fp16
initial: {{tp: 8, pp: 1, mbs: 1, gbs: 512, seq: 8192, recompute: full}}
trials: {trials}
simulation: {{seed: {seed}, train_iters: 12, time_scale: {scale}}}
pools:
  - {{name: sim, kind: simulated, capacity: {slots}}}
"""


def seconds(stamp):
    return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def tune(build, workdir, slots, seed, trials, scale):
    job = os.path.join(workdir, f"slots{slots}.yaml")
    with open(job, "w") as f:
        f.write(JOB.format(slots=slots, seed=seed, trials=trials, scale=scale))
    out = subprocess.run([os.path.join(build, "bin", "paratune"), "tune", job, "--db",
                          os.path.join(workdir, f"pool{slots}"), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def truth(build, session, seed):
    args = session["best"]["megatron_args"]
    out = subprocess.run([os.path.join(build, "bin", "paratune-sim"), "--sim-world-size", "8",
                          "--sim-seed", str(seed), "--evaluate", "--json"] + args,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["tflops_per_gpu"]


def timeline(session, target):
    """(time to best, time to target, wall clock, most trials at once), seconds."""
    ran = [t for t in session["trials"] if t["started_at"] and t["ended_at"]]
    t0 = min(seconds(t["started_at"]) for t in ran)
    best = max(ran, key=lambda t: t["tflops_per_gpu"])
    reach = [seconds(t["ended_at"]) for t in ran if t["tflops_per_gpu"] >= target]
    events = sorted([(seconds(t["started_at"]), 1) for t in ran] +
                    [(seconds(t["ended_at"]), -1) for t in ran])
    now = peak = 0
    for _, step in events:
        now += step
        peak = max(peak, now)
    return (seconds(best["ended_at"]) - t0, min(reach) - t0,
            max(seconds(t["ended_at"]) for t in ran) - t0, peak)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build")
    p.add_argument("--seeds", default="1,2,3,4,5")
    p.add_argument("--trials", type=int, default=16)
    p.add_argument("--time-scale", type=float, default=0.01,
                   help="wall seconds per simulated second (an iteration pauses at most 0.5 s)")
    a = p.parse_args()
    os.environ.setdefault("PARATUNE_CONFIGS",
                          os.path.join(os.path.dirname(__file__), "..", "..", "configs"))
    print("| seed | time to best, 1 slot (s) | 4 slots (s) | speed-up | time to 1-slot quality, "
          "4 slots (s) | speed-up | wall clock 1 / 4 (s) | most at once | best truth 1 slot "
          "(TFLOP/s/GPU) | 4 slots |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    sums = [0.0, 0.0, 0.0]
    quality = []
    for seed in [int(s) for s in a.seeds.split(",")]:
        with tempfile.TemporaryDirectory() as d:
            one = tune(a.build, d, 1, seed, a.trials, a.time_scale)
            four = tune(a.build, d, 4, seed, a.trials, a.time_scale)
            target = 0.99 * one["best"]["tflops_per_gpu"]
            best1, _, wall1, _ = timeline(one, target)
            best4, reach4, wall4, peak4 = timeline(four, target)
            truth1, truth4 = truth(a.build, one, seed), truth(a.build, four, seed)
            sums[0] += best1
            sums[1] += best4
            sums[2] += reach4
            quality.append(truth4 / truth1)
            print(f"| {seed} | {best1:.1f} | {best4:.1f} | {best1 / best4:.1f}x | {reach4:.1f} | "
                  f"{best1 / reach4:.1f}x | {wall1:.1f} / {wall4:.1f} | {peak4} | "
                  f"{truth1:.1f} | {truth4:.1f} |")
    print(f"\nall seeds: time to best {sums[0]:.1f} s with 1 slot, {sums[1]:.1f} s with 4 "
          f"({sums[0] / sums[1]:.2f}x); to the 1-slot quality {sums[2]:.1f} s "
          f"({sums[0] / sums[2]:.2f}x); final truth 4 slots / 1 slot: "
          f"min {min(quality):.3f}, mean {sum(quality) / len(quality):.3f}")


if __name__ == "__main__":
    sys.exit(main())
