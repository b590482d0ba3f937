"""PyPI toncenter 0.4.0's streaming clients, unchanged, against `tonindex
dev` (argv[1] = base URL): ToncenterSSE and ToncenterWebSocket subscribe to
two genesis wallets, the faucet funds them (`/dev/fund`, one block each),
and each transfer reaches the subscriber as `transactions`, `actions` and
`account_state_change` at `finalized`, once, naming the faucet's
transaction; the WebSocket client pings, unsubscribes one wallet and no
longer hears of it. Then a tonutils wallet builds a transfer, and a `trace`
subscription by its normalized hash (TEP-467, as tonutils computes it) gets
the whole trace once it is final, named by that hash, as the wallet's
`transactions` are. Prints one JSON line; a failed expectation raises."""

import asyncio
import json
import sys

from streaming_common import Listening, fund, funded_transfer, genesis, must, wait_for
from ton_core import NetworkGlobalID
from toncenter.streaming import (
    AccountStateNotification,
    ActionsNotification,
    ToncenterSSE,
    ToncenterWebSocket,
    TraceNotification,
    TransactionsNotification,
)
from toncenter.types import Network
from tonutils.clients import ToncenterClient


def raw_upper(address):
    wc, hex_part = address.split(":")
    return f"{wc}:{hex_part.upper()}"


def check_transfer(got, address, funded):
    """The notifications of one funding of `address`: each kind once."""
    txs = [n for n in got if isinstance(n, TransactionsNotification)]
    mine = [t for n in txs for t in n.transactions if t["hash"] == funded["tx_hash"]]
    must(len(mine) == 1, f"the funded transaction once in `transactions`: {len(mine)}")
    must(all(n.finality == "finalized" for n in got), "every notification finalized")
    must(all(n.trace_external_hash_norm for n in txs), "transactions name their trace")
    must(raw_upper(mine[0]["account"]) == raw_upper(address), "the subscribed account's transaction")
    actions = [a for n in got if isinstance(n, ActionsNotification) for a in n.actions]
    must(
        any(a["type"] == "ton_transfer" and funded["tx_hash"] in a["transactions"] for a in actions),
        "a ton_transfer action with the funded transaction",
    )
    states = [n for n in got if isinstance(n, AccountStateNotification)]
    must(
        any(raw_upper(n.account) == raw_upper(address) for n in states),
        "the account's new state",
    )


async def main(base):
    wallets = genesis(base)
    a, b = wallets[1]["address"], wallets[2]["address"]
    types = ["transactions", "actions", "account_state_change"]
    loop = asyncio.get_running_loop()

    # Server-sent events.
    sse = Listening(ToncenterSSE("", Network.MAINNET, base_url=base))
    got = await sse.start(addresses=[a], types=types, include_address_book=True)
    funded = await loop.run_in_executor(None, fund, base, a, 1_000_000_000)
    await wait_for(lambda: len(got) >= 3, "three SSE notifications")
    await asyncio.sleep(0.5)
    check_transfer(got, a, funded)
    must(len(got) == 3, f"exactly three notifications, got {[type(n).__name__ for n in got]}")
    must(got[0].address_book is not None, "the address book asked for")
    await sse.close()

    # WebSocket: two wallets, a ping, then one unsubscribed.
    listening = Listening(ToncenterWebSocket("", Network.MAINNET, base_url=base))
    ws = listening.client
    got = await listening.start(addresses=[a, b], types=types)
    funded_b = await loop.run_in_executor(None, fund, base, b, 2_000_000_000)
    await wait_for(lambda: len(got) >= 3, "three WebSocket notifications")
    check_transfer(got, b, funded_b)
    await ws.dynamic_unsubscribe(addresses=[b])
    pong = await ws._send_and_wait(ws._require_ws(), {"operation": "ping", "id": "p1"}, "p1")
    must(pong == {"id": "p1", "status": "pong"}, f"pong: {pong}")
    got.clear()
    await loop.run_in_executor(None, fund, base, b, 3_000_000_000)
    funded_a = await loop.run_in_executor(None, fund, base, a, 4_000_000_000)
    await wait_for(lambda: len(got) >= 3, "the still subscribed wallet's notifications")
    await asyncio.sleep(0.5)
    check_transfer(got, a, funded_a)
    accounts = {raw_upper(t["account"]) for n in got if isinstance(n, TransactionsNotification) for t in n.transactions}
    must(accounts == {raw_upper(a)}, f"nothing of the unsubscribed wallet: {accounts}")
    await listening.close()

    # A trace by the normalized hash of the external message it starts with.
    client = ToncenterClient(NetworkGlobalID.MAINNET, base_url=f"{base}/api/v2", rps_limit=1000, rps_period=1)
    async with client:
        me, message, norm = await funded_transfer(base, client, wallets[3]["address"], "traced")
        sse = Listening(ToncenterSSE("", Network.MAINNET, base_url=base))
        got = await sse.start(addresses=[me], types=["transactions", "trace"], trace_external_hash_norms=[norm])
        await client.send_message(message.as_hex)
        await wait_for(lambda: any(isinstance(n, TraceNotification) for n in got), "the trace")
        await asyncio.sleep(0.5)
        traces = [n for n in got if isinstance(n, TraceNotification)]
        must(len(traces) == 1, f"the trace once: {len(traces)}")
        trace = traces[0]
        must(trace.trace_external_hash_norm == norm, f"named by tonutils' normalized hash: {trace.trace_external_hash_norm} != {norm}")
        must(len(trace.transactions) == 2, f"the wallet's and the receiver's transactions: {list(trace.transactions)}")
        must(trace.trace["tx_hash"] in trace.transactions, "the tree's root among the transactions")
        must(len(trace.trace["children"]) == 1, "one message sent")
        must(any(a["type"] == "ton_transfer" for a in trace.actions or []), "its ton_transfer action")
        mine = [n for n in got if isinstance(n, TransactionsNotification)]
        must(len(mine) == 1 and mine[0].trace_external_hash_norm == norm, "the wallet's transactions, same trace")
        await sse.close()
    print(json.dumps({"ok": True}))


asyncio.run(main(sys.argv[1]))
