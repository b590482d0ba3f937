"""What a follower's catch-ups with the writer cost the requests it serves.

`tonindex serve` over an index (a read-only follower) catches up every
`--interval-ms`. This runs it, keeps `--slow` connections busy with big
pages (traces of the whole index, limit 1000) and times a point request
(v2 getMasterchainInfo) on one more connection, with and without the slow
load: p50/p99/max in milliseconds. Then once more with catch-ups off (an
interval of a day), the floor.

Usage: python3 benches/catch_up_latency.py --db DIR [--bin target/release/tonindex]
       [--interval-ms 200] [--slow 2] [--seconds 10] [--port 18090]
"""

import argparse
import http.client
import os
import subprocess
import threading
import time


def serve(args, interval_ms, port):
    env = dict(os.environ, TONINDEX_SERVE__CATCH_UP_INTERVAL_MS=str(interval_ms))
    proc = subprocess.Popen(
        [args.bin, "serve", "--db", args.db, "--listen", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/healthcheck")
            if c.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("tonindex serve did not answer")


def probe(port, slow, seconds):
    stop = threading.Event()

    def hammer():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while not stop.is_set():
            c.request("GET", "/api/v3/traces?limit=1000")
            c.getresponse().read()

    threads = [threading.Thread(target=hammer) for _ in range(slow)]
    for t in threads:
        t.start()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    lat = []
    end = time.time() + seconds
    while time.time() < end:
        t0 = time.perf_counter()
        c.request("GET", "/api/v2/getMasterchainInfo")
        c.getresponse().read()
        lat.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.005)
    stop.set()
    for t in threads:
        t.join()
    lat.sort()

    def q(p):
        return lat[min(len(lat) - 1, int(p * len(lat)))]

    return f"n={len(lat)} p50={q(0.5):.1f} p99={q(0.99):.1f} max={lat[-1]:.1f} ms"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--bin", default="target/release/tonindex")
    ap.add_argument("--interval-ms", type=int, default=200)
    ap.add_argument("--slow", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--port", type=int, default=18090)
    args = ap.parse_args()
    for label, interval in [
        (f"catch-up every {args.interval_ms} ms", args.interval_ms),
        ("no catch-ups", 86_400_000),
    ]:
        proc = serve(args, interval, args.port)
        try:
            quiet = probe(args.port, 0, args.seconds / 2)
            loaded = probe(args.port, args.slow, args.seconds)
        finally:
            proc.terminate()
            proc.wait()
        print(f"{label}: alone {quiet}; beside {args.slow} slow pages {loaded}")


main()
