#!/usr/bin/env python3
"""Optuna's TPE as a search peer of bench_tuning_quality.

Speaks the trial protocol of bench/tuning_quality/trial_protocol.hpp: JSON
lines on stdin and stdout. The bench sends the search space (categorical
parameters), the budget and the seed; this peer asks for one configuration
at a time and tells Optuna what the bench measured: the TFLOP/s of a run
that succeeded, a FAIL trial for a run that failed. Otherwise TPESampler's
defaults, with the given seed.

Two things a user of Optuna on a discrete space does, as Optuna's FAQ
advises, so that TPE is not handicapped by the protocol:
- A configuration the bench refuses (Megatron's rules, or not measured in a
  replay) costs no trial. It is a FAIL trial, so it neither ends TPE's
  random start-up nor enters its model, and the peer asks again.
- A configuration asked for again is answered from the earlier trial
  (its value, or FAIL) without running it twice.
If TPE proposes nothing but such configurations for MAX_LOCAL asks in a row,
the peer says "done" and the bench ends the run with the trials it has.
"""

import json
import sys

import optuna

MAX_LOCAL = 200


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)  # the bench closed the pipe: the run is over
    return json.loads(line)


def main():
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    start = receive()
    if start.get("op") != "start":
        sys.exit("optuna_peer: expected a start message, got %r" % start)
    space = start["space"]
    sampler = optuna.samplers.TPESampler(seed=int(start["seed"]) % (2**32))
    study = optuna.create_study(direction="maximize", sampler=sampler)
    known = {}  # configuration -> its value, or None for a failure or a refusal
    local = 0
    while True:
        trial = study.ask()
        config = {key: trial.suggest_categorical(key, values) for key, values in space.items()}
        key = tuple(sorted(config.items()))
        if key in known:
            local += 1
            if local >= MAX_LOCAL:
                send({"op": "done"})
                return
            if known[key] is None:
                study.tell(trial, state=optuna.trial.TrialState.FAIL)
            else:
                study.tell(trial, known[key])
            continue
        local = 0
        send({"op": "ask", "config": config})
        reply = receive()
        if reply.get("op") == "stop":
            return
        if reply.get("status") == "succeeded":
            known[key] = float(reply["tflops_per_gpu"])
            study.tell(trial, known[key])
        else:
            known[key] = None
            study.tell(trial, state=optuna.trial.TrialState.FAIL)


if __name__ == "__main__":
    main()
