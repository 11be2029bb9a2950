#!/usr/bin/env python3
"""Optuna's TPE as a search peer of bench_tuning_quality.

Speaks the trial protocol of bench/tuning_quality/trial_protocol.hpp: JSON
lines on stdin and stdout. The bench sends the search space (categorical
parameters), the budget and the seed; this peer asks for one configuration
at a time and tells Optuna what the bench measured. A run that failed is a
FAIL trial; a configuration Megatron's rules refuse is a FAIL trial too, but
the bench spends no trial budget on it (as random search draws only valid
configurations). Optuna's TPESampler with its defaults and the given seed.
"""

import json
import sys
import warnings

import optuna


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
    warnings.simplefilter("ignore")  # constraints_func is marked experimental
    sampler = optuna.samplers.TPESampler(
        seed=int(start["seed"]) % (2**32),
        constraints_func=lambda trial: [trial.user_attrs.get("refused", 0.0)])
    study = optuna.create_study(direction="maximize", sampler=sampler)
    while True:
        trial = study.ask()
        config = {key: trial.suggest_categorical(key, values) for key, values in space.items()}
        send({"op": "ask", "config": config})
        reply = receive()
        if reply.get("op") == "stop":
            return
        if reply.get("status") == "succeeded":
            study.tell(trial, float(reply["tflops_per_gpu"]))
        elif reply.get("status") == "refused":
            trial.set_user_attr("refused", 1.0)
            study.tell(trial, 0.0)
        else:
            study.tell(trial, state=optuna.trial.TrialState.FAIL)


if __name__ == "__main__":
    main()
