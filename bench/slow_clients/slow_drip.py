#!/usr/bin/env python3
"""Slow-drip clients against a paratune dashboard, with /health probed meanwhile.

Opens CLIENTS connections to HOST:PORT, each sending one byte of a request
header a second and never finishing it (a connection the server closes is
opened again), for SECONDS; every 0.25 s a fresh connection asks /health
and its latency is kept (a probe without an answer in 5 s counts as lost).
At the end /metrics is fetched and checked with promtool when it is on PATH.

  bench/slow_clients/slow_drip.py 127.0.0.1:PORT --clients 1000 --seconds 30
"""
import argparse, selectors, socket, subprocess, shutil, sys, threading, time, http.client


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


def probe(host, port, seconds, latencies, lost):
    end = time.time() + seconds
    while time.time() < end:
        start = time.time()
        try:
            c = http.client.HTTPConnection(host, port, timeout=5)
            c.request("GET", "/health")
            r = c.getresponse()
            r.read()
            c.close()
            if r.status == 200:
                latencies.append(time.time() - start)
            else:
                lost.append(r.status)
        except Exception as e:
            lost.append(str(e))
        time.sleep(0.25)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("address")
    ap.add_argument("--clients", type=int, default=1000)
    ap.add_argument("--seconds", type=int, default=30)
    a = ap.parse_args()
    host, port = a.address.rsplit(":", 1)
    port = int(port)
    stats = {"opened": 0, "shed": 0}
    latencies, lost = [], []
    t = threading.Thread(target=drip, args=(host, port, a.clients, a.seconds, stats))
    t.start()
    time.sleep(2)  # the slow clients connect first
    probe(host, port, a.seconds - 2, latencies, lost)
    t.join()
    latencies.sort()
    pct = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")
    print(f"slow clients {a.clients} for {a.seconds} s: connections opened {stats['opened']}, "
          f"shed by the server {stats['shed']}")
    print(f"/health: {len(latencies)} answered, {len(lost)} lost; p50 {pct(0.5):.1f} ms, "
          f"p99 {pct(0.99):.1f} ms, max {pct(1.0):.1f} ms")
    c = http.client.HTTPConnection(host, port, timeout=5)
    c.request("GET", "/metrics")
    body = c.getresponse().read()
    if shutil.which("promtool"):
        r = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
        print("promtool check metrics:", "ok" if r.returncode == 0 else r.stderr.decode())
    else:
        print(f"/metrics: {len(body)} bytes (promtool not on PATH)")
    return 0 if not lost and latencies and latencies[-1] < 2.0 else 1


if __name__ == "__main__":
    sys.exit(main())
