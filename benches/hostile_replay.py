#!/usr/bin/env python3
"""Replays the full-size hostile cases of issue S1 against a release build
of `tonindex serve` and reports what the server did (not run in CI).

Builds an index of the 2019 fixture states and blocks plus an "echo"
account (examples/echo_account.rs: every get-method returns its arguments),
starts the server with its default settings, and while sampling its RSS and
`/healthcheck` (every 20 ms, a new connection each), runs in turn:

  1. the 12- and 24-level cell DAG bombs through v2 runGetMethod;
  2. three 2,000,000-digit numbers at once;
  3. 300 slowloris sockets (headers a byte a second) for 60 s, each
     reconnecting when the server closes it;
  4. 2000 parallel v2 account pages (elector, limit 100);
  5. 4000 parallel `/api/v3/transactions?limit=1000` pages.

It prints one JSON summary: peak RSS (VmHWM), healthcheck p50/p99/max and
failures, status counts per case, any 5xx other than 503/504, and whether
the server answered normally afterwards.

    cargo build --release --examples && python3 benches/hostile_replay.py
"""

import argparse
import asyncio
import base64
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "tests", "data", "fixtures")
ELECTOR = "-1:3333333333333333333333333333333333333333333333333333333333333333"


def dag_bomb(levels):
    """A BoC (base64) of `levels` cells, each referencing the next 4 times."""
    n = levels
    # Cell i (0 = root) references cell i+1 four times; the last is empty.
    cells = []
    for i in range(n):
        if i < n - 1:
            refs = [i + 1] * 4
            cells.append(bytes([4, 0]) + bytes(refs))
        else:
            cells.append(bytes([0, 0]))
    body = b"".join(cells)
    size = len(body)
    off_bytes = max(1, (size.bit_length() + 7) // 8)
    header = bytes([0xB5, 0xEE, 0x9C, 0x72])
    header += bytes([0x01])  # no index, no crc, size bytes = 1
    header += bytes([off_bytes])
    header += bytes([n, 1, 0])  # cells, roots, absent
    header += size.to_bytes(off_bytes, "big")
    header += bytes([0])  # root index
    return base64.b64encode(header + body).decode()


async def http(port, method, path, body=None, timeout=120):
    """One request on a new connection: (status, seconds) or (None, seconds)."""
    start = time.monotonic()
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        data = body.encode() if body is not None else b""
        head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        w.write(head.encode() + b"\r\n" + data)
        await w.drain()
        resp = await asyncio.wait_for(r.read(), timeout)
        w.close()
        status = int(resp.split(b" ", 2)[1]) if resp else None
        return status, time.monotonic() - start, resp
    except Exception as e:
        return None, time.monotonic() - start, type(e).__name__.encode()


class Monitor:
    def __init__(self, pid, port):
        self.pid, self.port = pid, port
        self.rss = []
        self.health = []
        self.health_failures = 0
        self.stop = False

    def vm(self, key):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1]) * 1024
        return 0

    async def run(self):
        while not self.stop:
            self.rss.append(self.vm("VmRSS:"))
            status, secs, _ = await http(self.port, "GET", "/healthcheck", timeout=5)
            if status == 200:
                self.health.append(secs)
            else:
                self.health_failures += 1
            await asyncio.sleep(0.02)


def pct(xs, p):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def counts(results):
    """Statuses by count; a request with no answer is counted by its error."""
    out = {}
    for status, _, resp in results:
        key = str(status) if status is not None else "no answer: " + resp.decode()
        out[key] = out.get(key, 0) + 1
    return out


async def slowloris(port, seconds, sockets):
    """`sockets` clients sending headers a byte a second for `seconds`."""
    lasted = []
    end = time.monotonic() + seconds
    line = b"GET /api/v3/masterchainInfo HTTP/1.1\r\nHost: x\r\nX-a: "

    async def one():
        while time.monotonic() < end:
            start = time.monotonic()
            try:
                _, w = await asyncio.open_connection("127.0.0.1", port)
            except Exception:
                await asyncio.sleep(0.5)
                continue
            i = 0
            try:
                while time.monotonic() < end:
                    w.write(line[i % len(line):i % len(line) + 1])
                    await w.drain()
                    i += 1
                    await asyncio.sleep(1)
                    if w.is_closing():
                        break
            except Exception:
                pass
            lasted.append(time.monotonic() - start)
            w.close()

    await asyncio.gather(*[one() for _ in range(sockets)])
    return {"sockets": sockets, "connections": len(lasted),
            "longest_s": round(max(lasted), 1) if lasted else None,
            "median_s": round(pct(lasted, 0.5), 1) if lasted else None}


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "tonindex"))
    ap.add_argument("--slowloris-seconds", type=int, default=60)
    args = ap.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    work = tempfile.mkdtemp(prefix="tonindex-hostile-")
    db = os.path.join(work, "db")
    example = os.path.join(os.path.dirname(args.bin), "examples", "echo_account")
    echo_boc = os.path.join(work, "echo.boc")
    echo = subprocess.check_output([example, echo_boc], text=True).strip()
    subprocess.check_call([args.bin, "import", "--db", db,
                           os.path.join(FIX, "accounts/ever-block-mainnet-2019/state_2659.boc"),
                           os.path.join(FIX, "accounts/ever-block-mainnet-2019/state_571524.boc"),
                           echo_boc, os.path.join(FIX, "blocks/ever-block-mainnet-2019")],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port = 18000 + os.getpid() % 1000
    log = open(os.path.join(work, "serve.log"), "w")
    # 4 MiB bodies (the default is 1 MiB), so that the 2,000,000-digit
    # numbers below reach the number check instead of the body limit.
    env = dict(os.environ, TONINDEX_SERVE__MAX_BODY_BYTES=str(4 << 20))
    server = subprocess.Popen([args.bin, "serve", "--db", db, "--listen", f"127.0.0.1:{port}"],
                              stdout=log, stderr=log, env=env)
    for _ in range(300):
        if (await http(port, "GET", "/healthcheck", timeout=1))[0] == 200:
            break
        await asyncio.sleep(0.1)
    mon = Monitor(server.pid, port)
    watcher = asyncio.create_task(mon.run())
    report = {"rss_start_mb": round(mon.vm("VmRSS:") / 2**20, 1)}
    other_5xx = []

    def note(case, results):
        for status, _, resp in results:
            # 533 is v2's documented code for a result its legacy form cannot carry.
            if status is not None and status >= 500 and status not in (503, 504, 533):
                other_5xx.append((case, status, resp[:300].decode(errors="replace")))
        return counts(results)

    # 1. DAG bombs.
    for levels in (12, 24):
        body = json.dumps({"address": echo, "method": "echo",
                           "stack": [["tvm.Cell", dag_bomb(levels)]]})
        res = await http(port, "POST", "/api/v2/runGetMethod", body)
        report[f"bomb_{levels}"] = {"status": res[0], "seconds": round(res[1], 3),
                                    "body_bytes": len(res[2])}
        note("bomb", [res])
    # 2. Huge numbers x3.
    digits = "7" * 2_000_000
    body = json.dumps({"address": echo, "method": "echo", "stack": [["num", digits]]})
    res = await asyncio.gather(*[http(port, "POST", "/api/v2/runGetMethod", body) for _ in range(3)])
    report["numbers_2M_x3"] = {"statuses": note("numbers", res),
                               "max_seconds": round(max(r[1] for r in res), 3),
                               "max_response_bytes": max(len(r[2]) for r in res)}
    # 3. Slowloris.
    report["slowloris"] = await slowloris(port, args.slowloris_seconds, 300)
    # 4. Account pages.
    t = time.monotonic()
    res = await asyncio.gather(*[http(port, "GET", f"/api/v2/getTransactions?address={ELECTOR}&limit=100")
                                 for _ in range(2000)])
    report["account_pages_2000"] = {"statuses": note("pages", res), "seconds": round(time.monotonic() - t, 1),
                                    "median_latency_s": round(pct([r[1] for r in res], 0.5), 3)}
    # 5. Big v3 pages.
    t = time.monotonic()
    res = await asyncio.gather(*[http(port, "GET", "/api/v3/transactions?limit=1000") for _ in range(4000)])
    report["v3_pages_4000"] = {"statuses": note("v3pages", res), "seconds": round(time.monotonic() - t, 1),
                               "median_latency_s": round(pct([r[1] for r in res], 0.5), 3)}
    mon.stop = True
    await watcher
    after = await http(port, "GET", "/api/v3/masterchainInfo")
    report["peak_rss_mb"] = round(mon.vm("VmHWM:") / 2**20, 1)
    report["rss_end_mb"] = round(mon.vm("VmRSS:") / 2**20, 1)
    report["healthcheck"] = {"samples": len(mon.health), "failures": mon.health_failures,
                             "p50_ms": round(pct(mon.health, 0.5) * 1000, 1),
                             "p99_ms": round(pct(mon.health, 0.99) * 1000, 1),
                             "max_ms": round(max(mon.health) * 1000, 1)}
    report["other_5xx"] = other_5xx[:5]
    report["healthy_after"] = after[0] == 200 and server.poll() is None
    server.terminate()
    server.wait()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    asyncio.run(main())
