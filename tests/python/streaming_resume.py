"""A slow subscriber is cut off, resumes from its point, and has every
notification exactly once (tonindex's `since`; toncenter drops silently).

Usage: streaming_resume.py BASE_URL (a running `tonindex dev`). Prints one
JSON line; the last line is {"ok": true, ...} when every check holds.

Client A reads everything as it comes; client S subscribes the same way,
then stops reading (a small receive buffer) while the faucet funds the
subscribed wallets block after block, until the server cuts S off (its
client count drops). S's stream ends with `stream_overflow` naming the
first masterchain block it missed; client R subscribes with `since` =
that block. S's notifications then R's must be A's, in order, each once;
a WebSocket subscribe with the same `since` replays the same.
"""

import asyncio
import json
import sys
import time

import aiohttp

from streaming_common import Reader, events, get_json, open_sse, post_json, wait_until

BASE = sys.argv[1].rstrip("/")
WALLETS = ["0:" + ("%02x" % i) * 32 for i in range(0x31, 0x35)]
SUB = {"types": ["transactions", "actions", "account_state_change"], "addresses": WALLETS}
PER_FUND = 3  # transactions, actions and account_state_change of the funded wallet


def post(path, body):
    return post_json(BASE, path, body)


def get(path):
    return get_json(BASE, path)


def clients():
    return get("/api/streaming/healthz")["components"]["commit-feed"]["clients"]


async def ws_replay(sub, count):
    """Subscribes over the WebSocket with `since`; the reply and `count`
    notifications."""
    url = BASE.replace("http", "ws", 1) + "/api/streaming/v2/ws"
    async with aiohttp.ClientSession() as session:
        async with session.ws_connect(url) as ws:
            await ws.send_json(dict(sub, operation="subscribe", id="again"))
            reply = json.loads((await ws.receive(timeout=30)).data)
            out = []
            while len(out) < count:
                out.append((await ws.receive(timeout=30)).data)
            return reply, out


def main():
    funded = 0

    def fund(n):
        nonlocal funded
        last = None
        for _ in range(n):
            status, v = post("/dev/fund", {"address": WALLETS[funded % 4], "amount": "1000000"})
            assert status == 200, v
            funded += 1
            last = v["mc_seqno"]
        return last

    a = open_sse(BASE, SUB, rcvbuf=1 << 22)
    reader_a = Reader(a)
    reader_a.start()
    slow = open_sse(BASE, SUB, rcvbuf=4096)
    wait_until("both clients", lambda: clients() == 2)

    # Funds until the server cuts the slow client off.
    for _ in range(60):
        fund(200)
        if clients() == 1:
            break
    else:
        raise AssertionError("the slow client was never cut off")
    cut_at = funded
    fund(30)

    slow.settimeout(30)
    raw = b""
    while True:
        chunk = slow.recv(1 << 20)
        if not chunk:
            break
        raw += chunk
    got = events(raw)
    last = json.loads(got[-1])
    assert last["type"] == "stream_overflow", last
    since = last["missed_from_mc_seqno"]
    before_cut = got[:-1]

    # `since` must name a block the index holds.
    newest = get("/api/v3/masterchainInfo")["last"]["seqno"]
    status, v = post("/api/streaming/v2/sse", dict(SUB, since=newest + 100))
    assert status == 400 and "not committed yet" in v["error"], (status, v)

    r = open_sse(BASE, dict(SUB, since=since))
    reader_r = Reader(r)
    reader_r.start()
    final_mc = fund(10)
    want = PER_FUND * funded
    wait_until(f"A's {want} notifications", lambda: len(reader_a.events()) >= want)
    resumed_count = want - len(before_cut)
    wait_until(f"R's {resumed_count} notifications", lambda: len(reader_r.events()) >= resumed_count)
    time.sleep(0.5)  # nothing more may come
    all_a, resumed = reader_a.events(), reader_r.events()
    assert len(all_a) == want, (len(all_a), want)
    assert len(resumed) == resumed_count, (len(resumed), resumed_count)
    first_resumed = json.loads(resumed[0])
    assert before_cut + resumed == all_a, "S's then R's notifications differ from A's"
    # The same replay over the WebSocket.
    reply, again = asyncio.run(ws_replay(dict(SUB, since=since), len(resumed)))
    assert reply == {"id": "again", "status": "subscribed"}, reply
    assert again == resumed, "the WebSocket's replay differs"
    seen = [json.loads(t) for t in all_a]
    states = [n for n in seen if n["type"] == "account_state_change"]
    assert len(states) == funded and len({json.dumps(n, sort_keys=True) for n in states}) == funded
    print(
        json.dumps(
            {
                "ok": True,
                "funded": funded,
                "cut_after_funds": cut_at,
                "before_cut": len(before_cut),
                "since": since,
                "final_mc": final_mc,
                "resumed": len(resumed),
                "first_resumed_type": first_resumed["type"],
            }
        )
    )


main()
