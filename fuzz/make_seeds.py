#!/usr/bin/env python3
"""Writes fuzz/seeds/<harness>/ from the real inputs the repository carries
(data/, configs/, tests/fixtures/), reduced to small representative pieces:
a fuzzer mutates small inputs much faster, and a folder stays well under
300 KB. Re-run it after changing the data; the seeds are checked in so that
bench/fuzz/run needs nothing but the repository.

    fuzz/make_seeds.py          # from the repository root
"""
import gzip
import json
import os
import shutil
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fuzz" / "seeds"


def out(harness, name, data):
    d = SEEDS / harness
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def cut_at_line(text, limit):
    """The first `limit` bytes of `text`, ending at a line break."""
    if len(text) <= limit:
        return text
    return text[: text.rfind(b"\n", 0, limit) + 1]


def megatron_log():
    # Each real log's start (argument dump, startup lines) and, where the log
    # is long, a later stretch with iteration, memory, timer and error lines.
    for path in sorted((ROOT / "data/megatron_logs").glob("*.txt")):
        text = path.read_bytes()
        out("megatron_log", path.stem + ".head.txt", cut_at_line(text, 12000))
        if len(text) > 24000:
            tail = text[-12000:]
            out("megatron_log", path.stem + ".tail.txt", tail[tail.find(b"\n") + 1:])


def prometheus_text():
    # The recorded dcgm-exporter answers, whole (a few KB each).
    for path in sorted((ROOT / "data/dcgm").glob("*.prom")):
        out("prometheus_text", path.name, path.read_bytes())


def trim_tables(node, rows):
    """A DataTable (or a list of them) with at most `rows` rows each."""
    if isinstance(node, list):
        return [trim_tables(t, rows) for t in node]
    if isinstance(node, dict) and isinstance(node.get("rows"), list):
        node = dict(node)
        node["rows"] = node["rows"][:rows]
    return node


def trim_op_tree(node, children, depth=0):
    """An op_profile tree with at most `children` children per node, 4 deep."""
    if isinstance(node, dict):
        node = {k: trim_op_tree(v, children, depth + 1) for k, v in node.items()}
        if isinstance(node.get("children"), list):
            node["children"] = node["children"][:children] if depth < 6 else []
    elif isinstance(node, list):
        node = [trim_op_tree(v, children, depth) for v in node]
    return node


def xprof_json():
    # One byte names the tool (fuzz/xprof_json.cpp): '0' + index in
    # xprof_known_tools, then the tool's JSON.
    tools = ["overview_page", "input_pipeline_analyzer", "roofline_model", "op_profile",
             "hlo_stats", "framework_op_stats"]
    sources = [ROOT / "data/xprof", *sorted(p for p in (ROOT / "tests/fixtures/asap").iterdir() if p.is_dir())]
    for src in sources:
        for path in sorted(src.iterdir()):
            name = path.name.removesuffix(".gz")
            tool = next((t for t in tools if name.endswith(t + ".json")), None)
            if tool is None:
                continue
            raw = path.read_bytes()
            doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
            doc = trim_op_tree(doc, 2) if tool == "op_profile" else trim_tables(doc, 6)
            text = json.dumps(doc, separators=(",", ":"))
            prefix = "" if src.name == "xprof" else src.name + "."
            out("xprof_json", prefix + name, chr(ord("0") + tools.index(tool)) + text)


def varint(b, i):
    shift = value = 0
    while True:
        byte = b[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def put_varint(v):
    o = bytearray()
    while True:
        if v < 0x80:
            o.append(v)
            return bytes(o)
        o.append((v & 0x7F) | 0x80)
        v >>= 7


def pb_fields(b):
    """(field, wire type, raw bytes of the whole field) of one message."""
    i = 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        wt = key & 7
        if wt == 0:
            _, i = varint(b, i)
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        elif wt == 2:
            n, i = varint(b, i)
            yield key >> 3, wt, b[start:i], b[i:i + n]
            i += n
            continue
        else:
            raise ValueError("wire type %d" % wt)
        yield key >> 3, wt, b[start:i], None


def pb_keep(b, limits, nested=None):
    """The message `b` with at most limits[field] occurrences of each field,
    and the fields in `nested` rewritten by their own function."""
    seen, o = {}, bytearray()
    for field, wt, head, payload in pb_fields(b):
        seen[field] = seen.get(field, 0) + 1
        if seen[field] > limits.get(field, 1 << 30):
            continue
        if payload is not None and nested and field in nested:
            payload = nested[field](payload)
            head = put_varint((field << 3) | 2) + put_varint(len(payload))
        o += head + (payload if payload is not None else b"")
    return bytes(o)


def xplane_pb():
    # XSpace{planes=1} > XPlane{lines=3, event_metadata=4, stat_metadata=5}
    # > XLine{events=4}: a few planes, lines and events, every field kind kept.
    raw = (ROOT / "data/xprof/tpu_inference_2.xplane.pb").read_bytes()
    line = lambda b: pb_keep(b, {4: 12})
    plane = lambda b: pb_keep(b, {3: 3, 4: 20, 5: 20}, {3: line})
    out("xplane_pb", "tpu_inference_2.small.xplane.pb", pb_keep(raw, {1: 3}, {1: plane}))
    out("xplane_pb", "tpu_inference_2.one_plane.xplane.pb",
        pb_keep(raw, {1: 1}, {1: lambda b: pb_keep(b, {3: 1, 4: 5, 5: 5},
                                                   {3: lambda l: pb_keep(l, {4: 3})})}))


def kineto():
    # The header (schema, devices, distributedInfo) and the first few events
    # of each category, so every kind (kernels, memcpy, NCCL, ProfilerStep)
    # appears in a trace of a few KB.
    for path in sorted((ROOT / "data/kineto").iterdir()):
        if path.suffix not in (".json", ".gz"):
            continue
        raw = path.read_bytes()
        doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
        per_cat, events = {}, []
        for e in doc.get("traceEvents", []):
            cat = str(e.get("cat", "")) + ("step" if "ProfilerStep" in str(e.get("name")) else "")
            per_cat[cat] = per_cat.get(cat, 0) + 1
            if per_cat[cat] <= 8:
                events.append(e)
        doc["traceEvents"] = events
        text = json.dumps(doc, separators=(",", ":")).encode()
        stem = path.name.split(".")[0]
        out("kineto", stem + ".small.json", text)
    # One gzip seed: the harness inflates it as read_kineto_trace would.
    small = (SEEDS / "kineto" / "hta_alexnet_A100_single_gpu.small.json").read_bytes()
    out("kineto", "hta_alexnet_A100_single_gpu.small.json.gz", gzip.compress(small, mtime=0))


def history_csv():
    for path in sorted((ROOT / "data/perf").glob("optico_*.csv")):
        out("history_csv", path.name, path.read_bytes())


def measured_table():
    # The head of each vTrain table, and a team's sweep with every column.
    for path in sorted((ROOT / "data/perf").glob("vtrain_*.csv")):
        head = b"".join(path.read_bytes().splitlines(keepends=True)[:25])
        out("measured_table", path.name, head)
    out("measured_table", "sweep.csv",
        "tp,pp,mbs,gbs,seq,recompute,iteration_ms,tflops_per_gpu,peak_memory_mib,status\n"
        "4,1,1,32,1024,full,1373.2,7.25,21000,ok\n2,1,4,32,1024,full,172.7,,30500,\n"
        "1,1,8,32,1024,full,,,,oom\n")


def copy_files(harness, paths):
    for path in paths:
        rel = path.relative_to(ROOT)
        out(harness, "_".join(rel.parts[-2:]), path.read_bytes())


def yaml_seeds():
    copy_files("job_yaml", sorted((ROOT / "configs/examples").glob("*.yaml")))
    copy_files("experiment_yaml",
               sorted((ROOT / "tests/fixtures/tpu").glob("*.yaml"))
               + sorted((ROOT / "tests/fixtures/asap").glob("*/experiment.yaml"))
               + sorted((ROOT / "tests/fixtures/corpus_experiments").glob("*.yaml"))[:6])


def text_seeds():
    models = {
        "gpt3-175b": "layers=96,hidden=12288,heads=96,vocab=51200,ffn=49152",
        "llama3-8b": "layers=32,hidden=4096,heads=32,kv_heads=8,vocab=128256,ffn=14336,swiglu=1",
        "moe": "layers=24,hidden=1024,heads=16,kv_heads=4,vocab=151936,ffn=3072,swiglu=1,"
               "experts=64,topk=8,moe_ffn=768",
    }
    for name, text in models.items():
        out("inline_model", name + ".txt", text)
    configs = {
        "short": "tp=2,pp=1,mbs=1",
        "job": "tp=8,pp=1,mbs=1,gbs=512,seq=8192,recompute=full",
        "full": "tp=2,pp=4,cp=2,ep=1,vpp=2,mbs=2,gbs=1024,seq=4096,sp=true,recompute=selective,"
                "recompute_method=block,recompute_layers=2,dist_opt=true,overlap_grad=true,"
                "overlap_param=true,fused_ce=false,first_pp_layers=3,last_pp_layers=5,"
                "pp_account_embedding=true,pp_account_loss=true,grad_reduce_bf16=true",
        "optico_names": "AC=full,AC_LAYERS=4,GLOBAL_BATCH_SIZE=256,SEQ_LENGTH=2048",
    }
    for name, text in configs.items():
        out("config_string", name + ".txt", text)
    # NUL-separated argv, as the strategy generator launches the simulator.
    argvs = {
        "trial": ["--sim-cluster", "dgx-a100-80g", "--sim-world-size", "8", "--sim-seed", "7004",
                  "--sim-time-scale", "0.000200", "--sim-failure-rate", "0.030000",
                  "--tensor-model-parallel-size", "2", "--pipeline-model-parallel-size", "1",
                  "--micro-batch-size", "1", "--global-batch-size", "512", "--seq-length",
                  "8192", "--log-throughput", "--recompute-granularity", "full"],
        "evaluate": ["--evaluate", "--json", "--sim-world-size", "16",
                     "--sim-megatron-version", "0.8", "--sim-cluster", "configs/clusters/dgx-h100.yaml"],
    }
    for name, argv in argvs.items():
        out("sim_args", name + ".argv", "\0".join(argv))


def msgpack(v):
    """Enough of msgpack for the envelope and its bodies."""
    if isinstance(v, bool):
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        return (struct.pack(">B", v) if 0 <= v < 128 else
                b"\xd3" + struct.pack(">q", v))
    if isinstance(v, float):
        return b"\xcb" + struct.pack(">d", v)
    if isinstance(v, (str, bytes)):
        b = v.encode() if isinstance(v, str) else v
        return (bytes([0xA0 | len(b)]) if len(b) < 32 else b"\xdb" + struct.pack(">I", len(b))) + b
    if isinstance(v, list):
        return b"\xdd" + struct.pack(">I", len(v)) + b"".join(msgpack(x) for x in v)
    if isinstance(v, dict):
        return b"\xdf" + struct.pack(">I", len(v)) + b"".join(
            msgpack(k) + msgpack(x) for k, x in v.items())
    raise TypeError(type(v))


def bus_envelope():
    # Envelopes as make_envelope() writes them (fields keyed by name,
    # messages/wire_types.hpp), around a few typed bodies.
    config = {"tp": "2", "pp": "1", "mbs": "1", "gbs": "512", "seq": "8192"}
    bodies = {
        "telemetry": {"trial": 4, "iteration": 10, "elapsed_ms": 1234.5, "tflops_per_gpu": 150.0},
        "trial_started": {"trial": 4, "config": config,
                          "argv": ["paratune-sim", "--sim-world-size", "8"]},
        "analysis_request": {"after_trial": 3},
        "trial_result": {"trial": 4, "config": config, "status": "failed", "tflops_per_gpu": 0.0,
                         "peak_memory_mib": 81000.0, "exit_code": 1, "error_kind": "oom",
                         "error_message": "CUDA out of memory", "log_tail": ["a", "b"]},
        "failure_diagnosis": {"trial": 4, "kind": "oom", "blamed": ["mbs"], "confidence": 92,
                              "retry": False, "summary": "MBS 4 caused OOM"},
        "session_status": {"state": "running", "trials_done": 2, "best_trial": 1,
                           "best_tflops": 155.5, "text": ""},
        "proposal": {"trial": 5, "exhausted": False, "config": config, "change": "mbs 1->2",
                     "group": "standard", "predicted_tflops": 160.0, "ranked": ["x"],
                     "argv": ["paratune-sim"]},
    }
    for type_name, body in bodies.items():
        env = {"v": 1, "type": type_name, "session": "sess-1", "trial": 4, "seq": 0,
               "ts_ms": 1732500000000, "body": msgpack(body)}
        out("bus_envelope", type_name + ".msgpack", msgpack(env))


def relay_wire():
    # What paratune-relay publishes and serves (adapters/relay/relay_wire.hpp).
    fetch = "tcp://127.0.0.1:41235"
    seeds = {
        "line": {"kind": "line", "seq": 3, "line": " iteration 3/ 12 | elapsed time per iteration (ms): 811.2", "fetch": fetch},
        "end": {"kind": "end", "seq": 12, "exit": 0, "fetch": fetch},
        "fetch_request": {"first": 3, "last": 5},
        "fetch_reply": {"lines": [[3, "line 3"], [5, "line 5"]], "last_seq": 8},
    }
    for name, body in seeds.items():
        out("relay_wire", name + ".msgpack", msgpack(body))


def control_request():
    # What a client sends the daemon's control endpoint (messages/control_wire.hpp).
    job = open(ROOT / "configs/examples/llama3-8b-a100x8.yaml").read()
    seeds = {
        "health": {"v": 1, "op": "health"},
        "list": {"v": 1, "op": "list"},
        "status": {"v": 1, "op": "status", "session": "s20261125T170258-4e4a"},
        "history": {"v": 1, "op": "history", "session": "s20261125T170258-4e4a",
                    "after_seq": 120, "limit": 50},
        "submit": {"v": 1, "op": "submit", "job_yaml": job, "job_path": "job.yaml", "trials": 6},
        "cancel": {"v": 1, "op": "cancel", "session": "../etc"},
    }
    for name, body in seeds.items():
        out("control_request", name + ".msgpack", msgpack(body))


def history_reply():
    # What the pool's owner answers a history request with
    # (messages/control_wire.hpp's reply; adapters/pool_feed reads it).
    def record(seq, trial, iteration):
        body = {"trial": trial, "iteration": iteration, "elapsed_ms": 950.0, "tflops_per_gpu": 180.0}
        return {"v": 1, "type": "telemetry", "session": "s1", "trial": trial, "seq": seq,
                "ts_ms": 1732500000000, "body": msgpack(body)}
    base = {"v": 1, "ok": True, "error": "", "session": "", "sessions": [], "records": [],
            "last_seq": 0, "more": False, "version": "", "uptime_ms": 0, "bus_subscribe": "",
            "active_sessions": 0, "pool_next_seq": 0}
    seeds = {
        "page": dict(base, records=[record(1, 1, 1), record(3, 2, 1)], last_seq=3, more=True),
        "empty": dict(base, last_seq=7),
        "refused": dict(base, ok=False, error="a history request needs a session"),
    }
    for name, body in seeds.items():
        out("history_reply", name + ".msgpack", msgpack(body))


def relay_args():
    out("relay_args", "wrap.txt", "--bus tcp://127.0.0.1:5555 --session s1 --trial 1 "
        "--log /tmp/relay.log --drop-seq 3,5 -- /usr/bin/printf x")
    out("relay_args", "follow.txt", "--bus tcp://node7:5555 --session s1 --trial 2 "
        "--log relay.log --follow train.log --fetch-bind tcp://*:* --linger-ms 0")


def main():
    if SEEDS.exists():
        shutil.rmtree(SEEDS)
    megatron_log()
    xprof_json()
    xplane_pb()
    kineto()
    history_csv()
    yaml_seeds()
    text_seeds()
    bus_envelope()
    prometheus_text()
    relay_wire()
    control_request()
    relay_args()
    history_reply()
    measured_table()
    for d in sorted(SEEDS.iterdir()):
        size = sum(f.stat().st_size for f in d.iterdir())
        print(f"{d.name:16} {len(list(d.iterdir())):3} files {size // 1024:5} KB")


if __name__ == "__main__":
    main()
