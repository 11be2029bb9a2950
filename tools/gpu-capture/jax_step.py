"""A small decoder-only transformer trained with plain JAX, timed step by step
and traced with jax.profiler, so paratune's XSpace reader has a real
*.xplane.pb with a known wall-clock step time beside it.

usage: jax_step.py OUT_DIR
writes OUT_DIR/steps.json and OUT_DIR/trace/plugins/profile/<run>/<host>.xplane.pb
"""
import json
import os
import sys
import time

import jax
import jax.numpy as jnp

VOCAB, D, LAYERS, HEADS, FFN, SEQ, BATCH = 32000, 1024, 8, 16, 4096, 1024, 8
LR, B1, B2, EPS = 3e-4, 0.9, 0.95, 1e-8


def init(key):
    def dense(k, i, o):
        return jax.random.normal(k, (i, o), jnp.float32) * 0.02
    keys = jax.random.split(key, 2 + LAYERS)
    layers = []
    for k in keys[2:]:
        ks = jax.random.split(k, 5)
        layers.append({
            "qkv": dense(ks[0], D, 3 * D), "o": dense(ks[1], D, D),
            "up": dense(ks[2], D, 2 * FFN), "down": dense(ks[3], FFN, D),
            "n1": jnp.ones((D,)), "n2": jnp.ones((D,)),
        })
    return {"emb": dense(keys[0], VOCAB, D), "out": dense(keys[1], D, VOCAB),
            "nf": jnp.ones((D,)), "layers": layers}


def rms(x, g):
    return x * jax.lax.rsqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-5) * g


def block(p, x):
    h = rms(x, p["n1"]).astype(jnp.bfloat16)
    q, k, v = jnp.split(h @ p["qkv"].astype(jnp.bfloat16), 3, -1)
    shape = (x.shape[0], SEQ, HEADS, D // HEADS)
    a = jax.nn.dot_product_attention(q.reshape(shape), k.reshape(shape), v.reshape(shape),
                                     is_causal=True)
    x = x + (a.reshape(x.shape) @ p["o"].astype(jnp.bfloat16)).astype(jnp.float32)
    h = rms(x, p["n2"]).astype(jnp.bfloat16)
    gate, up = jnp.split(h @ p["up"].astype(jnp.bfloat16), 2, -1)
    return x + ((jax.nn.silu(gate) * up) @ p["down"].astype(jnp.bfloat16)).astype(jnp.float32)


def loss_fn(params, tokens):
    x = params["emb"][tokens[:, :-1]]
    for p in params["layers"]:
        x = jax.checkpoint(block)(p, x)
    logits = (rms(x, params["nf"]).astype(jnp.bfloat16) @ params["out"].astype(jnp.bfloat16))
    logp = jax.nn.log_softmax(logits.astype(jnp.float32))
    return -jnp.mean(jnp.take_along_axis(logp, tokens[:, 1:, None], -1))


@jax.jit
def train_step(params, m, v, step, tokens):
    loss, g = jax.value_and_grad(loss_fn)(params, tokens)
    step = step + 1
    m = jax.tree_util.tree_map(lambda a, b: B1 * a + (1 - B1) * b, m, g)
    v = jax.tree_util.tree_map(lambda a, b: B2 * a + (1 - B2) * b * b, v, g)
    c1, c2 = 1 - B1 ** step, 1 - B2 ** step
    params = jax.tree_util.tree_map(
        lambda p, a, b: p - LR * (a / c1) / (jnp.sqrt(b / c2) + EPS), params, m, v)
    return params, m, v, step, loss


def main(out):
    os.makedirs(out, exist_ok=True)
    key = jax.random.PRNGKey(0)
    params = init(key)
    m = jax.tree_util.tree_map(jnp.zeros_like, params)
    v = jax.tree_util.tree_map(jnp.zeros_like, params)
    step = jnp.zeros((), jnp.float32)
    tokens = jax.random.randint(key, (BATCH, SEQ + 1), 0, VOCAB)
    times = []
    for i in range(13):
        t0 = time.perf_counter()
        params, m, v, step, loss = train_step(params, m, v, step, tokens)
        loss.block_until_ready()
        times.append(time.perf_counter() - t0)
        if i == 9:
            jax.profiler.start_trace(os.path.join(out, "trace"))
    jax.profiler.stop_trace()
    n_params = sum(x.size for x in jax.tree_util.tree_leaves(params))
    report = {
        "model": {"vocab": VOCAB, "d_model": D, "layers": LAYERS, "heads": HEADS, "ffn": FFN,
                  "seq": SEQ, "batch": BATCH, "params": int(n_params),
                  "remat": "jax.checkpoint per block", "dtype": "bf16 compute, fp32 params"},
        "step_seconds": times,
        "note": "step 0 includes compilation; steps 10-12 ran under jax.profiler",
        "final_loss": float(loss),
        "jax": jax.__version__, "devices": [str(d) for d in jax.devices()],
    }
    with open(os.path.join(out, "steps.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps({"step_seconds": times}))


if __name__ == "__main__":
    main(sys.argv[1])
