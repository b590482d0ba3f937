#!/usr/bin/env python3
"""Soak test (F8; not run in CI): mixed load on a running tonindex for a
while, with the index writing underneath, and what the server did.

The writer is `tonindex dev --block-interval 250`: a block pair every
250 ms goes through the same decode and index path (one WriteBatch per
unit) as an import, and a funding thread adds transactions (`/dev/fund`)
so that blocks are not empty. Against it, keep-alive client threads send
a mix of

  - point lookups: v2 getAddressInformation, v3 account, masterchainInfo;
  - account pages: v2 getTransactions (limit 50), v3 transactions (limit 100);
  - get-methods: v2 runGetMethod seqno, v3 runGetMethod get_public_key;
  - a few bad requests (a wrong address, an unknown method, a bad limit),
    which must be 4xx;

while RSS is sampled every 5 s, with RocksDB's memtable and block cache
sizes from `/metrics`: the database fills its caches and memtables as the
chain grows (up to their configured sizes), so what must stay flat is RSS
less those two. A rate-limited key (rps 5) is driven at
about 20 requests/s over one minute on a connection of its own: it must get
200 for the configured rate (plus the bucket's burst) and 429 for the rest.

Prints one JSON summary: per-minute request counts, p50/p99/max latency
(overall and per route), the server's CPU seconds per minute,
5xx counts, RSS and RSS less RocksDB's memtables and block cache at the end
of each minute, the key's 200/429 split against what its
rate allows, and blocks produced.

    cargo build --release && python3 benches/soak.py [--minutes 10]
"""

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEY = "soak-limited-key"
KEY_RPS = 5


def cpu_secs(pid):
    """The process's user + system CPU time, all threads."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Client:
    """One keep-alive connection; reconnects when the server closes it."""

    def __init__(self, port):
        self.port = port
        self.conn = None

    def call(self, method, path, body=None, headers=None):
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            h = dict(headers or {})
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                h["Content-Type"] = "application/json"
            start = time.monotonic()
            try:
                self.conn.request(method, path, body=data, headers=h)
                r = self.conn.getresponse()
                payload = r.read()
                return r.status, time.monotonic() - start, payload
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt == 1:
                    return None, time.monotonic() - start, b""
        return None, 0.0, b""


def wait_port(port, proc, seconds=120):
    end = time.time() + seconds
    while time.time() < end:
        if proc.poll() is not None:
            sys.exit(f"tonindex exited early: {proc.returncode}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/healthcheck")
            if c.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit("tonindex did not start listening")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "tonindex"))
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--clients", type=int, default=6)
    ap.add_argument("--port", type=int, default=18931)
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="tonindex-soak-")
    cfg = os.path.join(work, "soak.toml")
    with open(cfg, "w") as f:
        f.write(f'[[serve.api_keys]]\nkey = "{KEY}"\nrps = {KEY_RPS}\n')
    log = open(os.path.join(work, "dev.log"), "w")
    proc = subprocess.Popen(
        [args.bin, "--config", cfg, "dev", "--db", os.path.join(work, "db"),
         "--listen", f"127.0.0.1:{args.port}", "--block-interval", "250"],
        stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_port(args.port, proc)
        run(args, proc)
    finally:
        proc.terminate()
        proc.wait(30)


def run(args, proc):
    port = args.port
    setup = Client(port)
    status, _, body = setup.call("GET", "/dev/accounts")
    assert status == 200, status
    wallets = [w["address"] for w in json.loads(body)]
    duration = args.minutes * 60
    start = time.monotonic()
    stop = threading.Event()
    lock = threading.Lock()
    # minute -> list of (kind, status, seconds)
    samples = {}
    rss = []
    cpu = []  # (seconds since start, the server's CPU seconds so far)

    def record(kind, status, secs, label=None):
        minute = int((time.monotonic() - start) // 60)
        with lock:
            samples.setdefault(minute, []).append((kind, status, secs, label or kind))

    def worker(seed):
        rnd = random.Random(seed)
        c = Client(port)
        while not stop.is_set():
            w = rnd.choice(wallets)
            roll = rnd.random()
            if roll < 0.30:
                kind, req = "point", rnd.choice([
                    ("GET", f"/api/v2/getAddressInformation?address={w}", None),
                    ("GET", f"/api/v3/account?address={w}", None),
                    ("GET", "/api/v3/masterchainInfo", None),
                ])
            elif roll < 0.60:
                kind, req = "page", rnd.choice([
                    ("GET", f"/api/v2/getTransactions?address={w}&limit=50", None),
                    ("GET", f"/api/v3/transactions?account={w}&limit=100", None),
                    ("GET", "/api/v3/transactions?limit=100", None),
                ])
            elif roll < 0.95:
                kind, req = "getmethod", rnd.choice([
                    ("GET", f"/api/v2/runGetMethod?address={w}&method=seqno&stack=[]", None),
                    ("POST", "/api/v3/runGetMethod",
                     {"address": w, "method": "get_public_key", "stack": []}),
                ])
            else:
                kind, req = "bad", rnd.choice([
                    ("GET", "/api/v2/getAddressInformation?address=nonsense", None),
                    ("GET", "/api/v2/noSuchMethod", None),
                    ("GET", "/api/v3/transactions?limit=-5x", None),
                ])
            method, path, body = req
            status, secs, _ = c.call(method, path, body)
            route, _, query = path.partition("?")
            label = route + ("?account" if "account=" in query else "")
            record(kind, status, secs, f"{method} {label}")

    def funder():
        c = Client(port)
        rnd = random.Random(7)
        while not stop.is_set():
            w = rnd.choice(wallets)
            status, secs, _ = c.call("POST", "/dev/fund", {"address": w, "amount": "1000000"})
            record("fund", status, secs)
            time.sleep(0.1)

    def sampler():
        c = Client(port)
        while not stop.is_set():
            cpu.append((time.monotonic() - start, cpu_secs(proc.pid)))
            rocks = 0
            status, _, body = c.call("GET", "/metrics")
            if status == 200:
                for line in body.decode().splitlines():
                    if line.startswith(("tonindex_rocksdb_memtable_bytes ",
                                        "tonindex_rocksdb_block_cache_bytes ")):
                        rocks += float(line.split()[1])
            rss.append((round(time.monotonic() - start), rss_kib(proc.pid), int(rocks // 1024)))
            stop.wait(5)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.clients)]
    threads += [threading.Thread(target=funder), threading.Thread(target=sampler)]
    for t in threads:
        t.start()

    # The rate-limited key, in the middle of the run: ~20 requests/s for 60 s.
    time.sleep(min(60, duration / 3))
    key_client = Client(port)
    got = {}
    k_start = time.monotonic()
    sent = 0
    while time.monotonic() - k_start < 60:
        status, _, _ = key_client.call(
            "GET", "/api/v3/masterchainInfo", headers={"X-API-Key": KEY})
        got[status] = got.get(status, 0) + 1
        sent += 1
        time.sleep(max(0.0, k_start + sent / 20 - time.monotonic()))
    k_secs = time.monotonic() - k_start

    while time.monotonic() - start < duration:
        time.sleep(1)
    stop.set()
    for t in threads:
        t.join()

    _, _, info = setup.call("GET", "/api/v3/masterchainInfo")
    last_seqno = json.loads(info)["last"]["seqno"]

    minutes = []
    errors_5xx = {}
    bad_not_4xx = 0
    for m in sorted(samples):
        rows = samples[m]
        lat = sorted(s for _, st, s, _ in rows if st is not None)
        for kind, st, _, _ in rows:
            if st is None or st >= 500:
                errors_5xx[f"{kind}:{st}"] = errors_5xx.get(f"{kind}:{st}", 0) + 1
            if kind == "bad" and not (st is not None and 400 <= st < 500):
                bad_not_4xx += 1
        minutes.append({
            "minute": m,
            "requests": len(rows),
            "p50_ms": round(1000 * statistics.median(lat), 2) if lat else None,
            "p99_ms": round(1000 * lat[int(0.99 * (len(lat) - 1))], 2) if lat else None,
            "max_ms": round(1000 * lat[-1], 2) if lat else None,
        })
    # Per route and minute: p50/p99, to tell which requests slow down as
    # the chain grows (an account page grows until it holds `limit` rows).
    by_route = {}
    for m in sorted(samples):
        if m >= args.minutes:
            continue
        per = {}
        for _, st, s_, label in samples[m]:
            if st is not None:
                per.setdefault(label, []).append(s_)
        for label, lat in per.items():
            lat.sort()
            by_route.setdefault(label, []).append({
                "minute": m,
                "n": len(lat),
                "p50_ms": round(1000 * statistics.median(lat), 2),
                "p99_ms": round(1000 * lat[int(0.99 * (len(lat) - 1))], 2),
            })
    # The server's CPU seconds per wall minute (all its threads: requests,
    # block production, indexing, RocksDB).
    cpu_by_minute = []
    for m in range(int(args.minutes)):
        inside = [c for t, c in cpu if m * 60 <= t < (m + 1) * 60]
        if len(inside) >= 2:
            cpu_by_minute.append({"minute": m, "cpu_secs": round(inside[-1] - inside[0], 1)})
    # A token bucket of `rps` with a burst of `rps`: at most rps*t + rps pass.
    allowed = KEY_RPS * k_secs + KEY_RPS
    summary = {
        "minutes": minutes,
        "by_route": by_route,
        "server_cpu_by_minute": cpu_by_minute,
        "server_errors_or_drops": errors_5xx,
        "bad_requests_not_4xx": bad_not_4xx,
        # At the end of each minute: RSS, RocksDB's memtables + block
        # cache, and RSS less those.
        "memory_kib_by_minute": [
            {"minute": t // 60, "rss": v, "rocksdb_caches": r, "rss_less_rocksdb": v - r}
            for t, v, r in rss if t % 60 < 5
        ],
        "rss_kib_max": max(v for _, v, _ in rss) if rss else None,
        "rate_limited_key": {
            "rps": KEY_RPS,
            "seconds": round(k_secs, 1),
            "sent": sent,
            "statuses": got,
            "allowed_at_most": round(allowed),
            "allowed_at_least": round(KEY_RPS * k_secs),
        },
        "masterchain_seqno_at_end": last_seqno,
    }
    print(json.dumps(summary, indent=1))
    ok = (not errors_5xx and bad_not_4xx == 0
          and KEY_RPS * k_secs * 0.95 <= got.get(200, 0) <= allowed + 1
          and got.get(200, 0) + got.get(429, 0) == sent)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
