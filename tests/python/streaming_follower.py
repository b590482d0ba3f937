"""`tonindex serve` over a database `tonindex dev` writes streams what the
writer commits: the same notifications, in the same order, as the
writer's own streams, and `since` replays there too.

Usage: streaming_follower.py DEV_URL SERVE_URL. The last line printed is
{"ok": true, ...} when every check holds.
"""

import json
import sys
import time

from streaming_common import Reader, get_json, open_sse, post_json, wait_until

DEV, SERVE = (u.rstrip("/") for u in sys.argv[1:3])
WALLETS = ["0:" + ("%02x" % i) * 32 for i in range(0x41, 0x44)]
SUB = {"types": ["transactions", "actions", "account_state_change"], "addresses": WALLETS}
FUNDS = 20


def clients(base):
    return get_json(base, "/api/streaming/healthz")["components"]["commit-feed"]["clients"]


def newest_mc(base):
    """The newest masterchain block `base` reads, or why it could not say
    (a follower whose reads wait on a stuck catch-up times out here)."""
    try:
        return get_json(base, "/api/v2/getMasterchainInfo", timeout=10)["result"]["last"]["seqno"]
    except Exception as e:  # noqa: BLE001 - this is a failure report
        return f"no answer ({e!r})"


def main():
    writer = Reader(open_sse(DEV, SUB))
    follower = Reader(open_sse(SERVE, SUB))
    writer.start()
    follower.start()
    wait_until("the subscriptions", lambda: clients(DEV) == 1 and clients(SERVE) == 1)
    first = None
    for i in range(FUNDS):
        status, v = post_json(DEV, "/dev/fund", {"address": WALLETS[i % 3], "amount": "1000000"})
        assert status == 200, v
        first = first or v["mc_seqno"]
    want = 3 * FUNDS
    wait_until("the writer's notifications", lambda: len(writer.events()) >= want)
    wait_until(
        "the follower's notifications",
        lambda: len(follower.events()) >= want,
        # A follower catches up by polling; on a loaded CI machine that can
        # lag well behind the writer, which is not what this test is about.
        seconds=180,
        state=lambda: f"{len(follower.events())} of {want}; the newest masterchain block "
        f"the writer has {newest_mc(DEV)}, the follower {newest_mc(SERVE)}; the writer's health "
        f"{get_json(DEV, '/api/streaming/healthz')}, the follower's "
        f"{get_json(SERVE, '/api/streaming/healthz')}; the end of the follower's "
        f"stream: {follower.raw[-600:]!r}",
    )
    replayed = Reader(open_sse(SERVE, dict(SUB, since=first)))
    replayed.start()
    wait_until("the replay", lambda: len(replayed.events()) >= want)
    time.sleep(0.5)  # nothing more may come
    ours, theirs, again = follower.events(), writer.events(), replayed.events()
    assert len(theirs) == want, (len(theirs), want)
    assert ours == theirs, "the follower's notifications differ from the writer's"
    assert again == theirs, "the follower's replay differs from the writer's stream"
    health = get_json(SERVE, "/api/streaming/healthz")
    assert health["components"]["commit-feed"]["last_finalized_mc_block_time"] > 0, health
    print(json.dumps({"ok": True, "notifications": len(ours), "since": first}))


main()
