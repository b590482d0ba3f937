"""PyPI toncenter 0.4.0's ToncenterSSE, unchanged, against `tonindex dev
--block-interval` (argv[1] = base URL), subscribed at `pending`: two
transfers a tonutils wallet signs with the same seqno are both accepted
and emulated (`pending`); the block executes the first (`finalized`) and
refuses the second, whose trace is then withdrawn with
`trace_invalidated` — never after a `finalized` one, and the executed one
is never invalidated. Prints one JSON line; a failed expectation raises."""

import asyncio
import json
import sys

from streaming_common import Listening, funded_transfers, genesis, must, wait_for
from ton_core import NetworkGlobalID
from toncenter.streaming import ToncenterSSE
from toncenter.types import Network
from tonutils.clients import ToncenterClient


async def main(base):
    accounts = genesis(base)
    client = ToncenterClient(NetworkGlobalID.MAINNET, base_url=f"{base}/api/v2", rps_limit=1000, rps_period=1)
    async with client:
        me, [(first, kept), (second, refused)] = await funded_transfers(
            base, client, accounts[3]["address"], ["first", "second"]
        )
        sse = Listening(ToncenterSSE("", Network.MAINNET, base_url=base))
        got = await sse.start(
            addresses=[me],
            types=["transactions", "actions", "trace"],
            trace_external_hash_norms=[kept, refused],
            min_finality="pending",
        )
        await client.send_message(first.as_hex)
        await client.send_message(second.as_hex)
        heard = lambda norm: {(n.type, getattr(n, "finality", None)) for n in got if n.trace_external_hash_norm == norm}
        await wait_for(lambda: ("trace", "pending") in heard(refused), "the second transfer at pending")
        await wait_for(lambda: ("trace_invalidated", None) in heard(refused), "the second one invalidated")
        await wait_for(lambda: ("trace", "finalized") in heard(kept), "the first at finalized")
        await asyncio.sleep(1)
        await sse.close()
    seen = [(n.type, getattr(n, "finality", None), n.trace_external_hash_norm == kept) for n in got]
    of_refused = [(t, f) for t, f, k in seen if not k]
    of_kept = [(t, f) for t, f, k in seen if k]
    must(of_refused[-1] == ("trace_invalidated", None), f"invalidated last: {of_refused}")
    must(
        sorted(of_refused[:-1]) == sorted((k, "pending") for k in ("transactions", "actions", "trace")),
        f"the refused transfer only at pending, then withdrawn: {of_refused}",
    )
    must(of_refused.count(("trace_invalidated", None)) == 1, "withdrawn once")
    must(all(t != "trace_invalidated" for t, _ in of_kept), f"the executed one stands: {of_kept}")
    must({("trace", "pending"), ("trace", "finalized")} <= set(of_kept), f"the executed one at both levels: {of_kept}")
    print(json.dumps({"ok": True, "refused": of_refused, "kept": of_kept}))


asyncio.run(main(sys.argv[1]))
