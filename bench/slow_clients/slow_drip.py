#!/usr/bin/env python3
"""Slow-drip clients against a paratune dashboard, with /health probed meanwhile.

Opens CLIENTS connections to HOST:PORT, each sending one byte of a request
header a second and never finishing it (a connection the server closes is
opened again), for SECONDS; every 0.25 s a fresh connection asks /health
and its latency is kept (a probe without an answer in 5 s counts as lost),
and every 2 s one scrapes /metrics, each scrape checked with `promtool
check metrics` (Debian's prometheus package) when it is on PATH.
With --drip-uid UID (as root) the slow clients run in a child process as
that user while the probes stay this process's: another local user holding
the connections, the daemon's owner scraping.

  bench/slow_clients/slow_drip.py 127.0.0.1:PORT --clients 1000 --seconds 30
  bench/slow_clients/slow_drip.py 127.0.0.1:PORT --clients 1000 --seconds 30 --drip-uid 65534
"""
import argparse, multiprocessing, os, selectors, socket, subprocess, shutil, sys, threading, time, http.client


def drip(host, port, clients, seconds, stats):
    sel = selectors.DefaultSelector()
    header = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 10000
    conns = {}

    def open_one():
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect_ex((host, port))
        except OSError:
            s.close()
            return
        conns[s] = 0
        stats["opened"] += 1

    for _ in range(clients):
        open_one()
    end = time.time() + seconds
    while time.time() < end:
        tick = time.time()
        for s in list(conns):
            try:
                s.send(header[conns[s]:conns[s] + 1])
                conns[s] += 1
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:  # closed by the server: shed; a new one takes its place
                s.close()
                del conns[s]
                stats["shed"] += 1
                open_one()
        time.sleep(max(0.0, 1.0 - (time.time() - tick)))
    for s in conns:
        s.close()


def drip_as(uid, host, port, clients, seconds, out):
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    stats = {"opened": 0, "shed": 0}
    drip(host, port, clients, seconds, stats)
    out.put(stats)


def fetch(host, port, path):
    """The status and body of GET path on a fresh connection, 5 s time-out."""
    c = http.client.HTTPConnection(host, port, timeout=5)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


def probe(host, port, seconds, latencies, lost, scrapes):
    end = time.time() + seconds
    n = 0
    while time.time() < end:
        start = time.time()
        try:
            status, _ = fetch(host, port, "/health")
            if status == 200:
                latencies.append(time.time() - start)
            else:
                lost.append(status)
        except Exception as e:
            lost.append(str(e))
        n += 1
        if n % 8 == 1:  # a scrape every 2 s from the first probe on, kept for promtool
            try:
                status, body = fetch(host, port, "/metrics")
                scrapes.append(body if status == 200 else None)
            except Exception:
                scrapes.append(None)
        time.sleep(0.25)


def promtool(body):
    r = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
    return r.returncode == 0, r.stderr.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("address")
    ap.add_argument("--clients", type=int, default=1000)
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--drip-uid", type=int, help="run the slow clients as this user (needs root)")
    a = ap.parse_args()
    host, port = a.address.rsplit(":", 1)
    port = int(port)
    stats = {"opened": 0, "shed": 0}
    latencies, lost, scrapes = [], [], []
    if a.drip_uid is None:
        t = threading.Thread(target=drip, args=(host, port, a.clients, a.seconds, stats))
    else:
        out = multiprocessing.Queue()
        t = multiprocessing.Process(target=drip_as,
                                    args=(a.drip_uid, host, port, a.clients, a.seconds, out))
    t.start()
    time.sleep(2)  # the slow clients connect first
    probe(host, port, a.seconds - 2, latencies, lost, scrapes)
    if a.drip_uid is not None:
        stats = out.get()
    t.join()
    latencies.sort()
    pct = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")
    who = "" if a.drip_uid is None else f" as uid {a.drip_uid}"
    print(f"slow clients {a.clients}{who} for {a.seconds} s: connections opened {stats['opened']}, "
          f"shed by the server {stats['shed']}")
    print(f"/health: {len(latencies)} answered, {len(lost)} lost; p50 {pct(0.5):.1f} ms, "
          f"p99 {pct(0.99):.1f} ms, max {pct(1.0):.1f} ms")
    answered = [b for b in scrapes if b is not None]
    if shutil.which("promtool"):
        bad = [err for ok, err in map(promtool, answered) if not ok]
        verdict = f"promtool check metrics ok on {len(answered) - len(bad)} of {len(answered)}"
        if bad:
            verdict += ": " + bad[0]
    else:
        bad = []
        verdict = "promtool not on PATH: not checked"
    print(f"/metrics during the run: {len(answered)} answered, {len(scrapes) - len(answered)} lost; "
          + verdict)
    return 0 if (not lost and latencies and latencies[-1] < 2.0 and not bad
                 and len(answered) == len(scrapes)) else 1


if __name__ == "__main__":
    sys.exit(main())
