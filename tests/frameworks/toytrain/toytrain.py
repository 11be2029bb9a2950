#!/usr/bin/env python3
"""toytrain: the trainer of the test-only framework (toytrain_framework.cpp).

It takes its own arguments, refuses what its rule refuses, and prints its
own log. Its step time and memory follow the layout in a fixed way, so that
a session over it has a best answer, an out-of-memory layout, and, with
--lose-peer-once, one run that loses a peer (a transient failure).
"""
import argparse
import os
import sys
import time

TAG = "[toytrain] "
MEMORY_MIB = 81920


def parse():
    p = argparse.ArgumentParser(prog="toytrain")
    for name in ("tensor-degree", "pipeline-degree", "micro-batch", "global-batch", "seq-len",
                 "devices", "layers"):
        p.add_argument("--" + name, type=int, required=True)
    p.add_argument("--steps", type=int, default=100000, help="steps to train")
    p.add_argument("--recompute", choices=["none", "selective", "full"], required=True)
    p.add_argument("--lose-peer-once", metavar="MARKER",
                   help="the first run that finds no MARKER creates it and loses a peer")
    p.add_argument("--step-seconds", type=float, default=0.02, help="wall time per step")
    return p.parse_args()


def main():
    a = parse()
    tp, pp, mbs = a.tensor_degree, a.pipeline_degree, a.micro_batch
    if a.layers % pp:
        print(f"{TAG}FATAL refused: --pipeline-degree {pp}: {a.layers} layers do not split evenly",
              flush=True)
        return 2
    dp = max(1, a.devices // (tp * pp))
    micro_batches = max(1, a.global_batch // (mbs * dp))
    keep = {"none": 1.0, "selective": 0.35, "full": 0.1}[a.recompute]
    memory = 24000 / (tp * pp) + 9000 * mbs * keep * a.seq_len / 4096 / tp
    if memory > MEMORY_MIB:
        print(f"{TAG}FATAL out of memory: needs {memory:.0f} MiB of {MEMORY_MIB} MiB", flush=True)
        return 1
    # Larger micro-batches use the device better; tensor parallelism and
    # the pipeline's bubble cost time; recomputation repeats the forward.
    step_ms = 900.0 * (1 + 0.6 / mbs) * (1 + 0.12 * (tp - 1)) \
        * (1 + (pp - 1) / micro_batches) * {"none": 1.0, "selective": 1.04, "full": 1.3}[a.recompute]
    tflops = 300_000.0 / step_ms
    for step in range(1, a.steps + 1):
        time.sleep(a.step_seconds)
        if a.lose_peer_once and step == 3 and not os.path.exists(a.lose_peer_once):
            open(a.lose_peer_once, "w").close()
            print(f"{TAG}FATAL peer lost: rank 1 stopped answering", flush=True)
            return 1
        print(f"{TAG}step {step} | {step_ms:.1f} ms | {tflops:.1f} TFLOP/s | {memory:.0f} MiB",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
