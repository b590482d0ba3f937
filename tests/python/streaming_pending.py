"""PyPI toncenter 0.4.0's ToncenterSSE, unchanged, against `tonindex dev
--block-interval` (argv[1] = base URL), subscribed at `pending`: a tonutils
wallet's transfer is heard as `transactions`, `actions` and `trace` when the
node accepts and emulates it (`pending`, the transactions marked emulated),
then again when its block is committed (`finalized`) — each kind at each
level once, never going down, all named by tonutils' normalized hash of the
external message, the emulation executing the message the chain executes.
With argv[2] = "confirmed" (the devnet run with --confirm-gap) it is heard at
`confirmed` in between: the shard block's own transactions (not emulated,
the hashes the committed ones then have). The wallet's `account_state_change`
comes at `confirmed` (where there is one: read from the shard block's state
update) and `finalized`, the same state both times, the one its transaction
left. With argv[3] = another node's base
URL (`tonindex run` following the devnet's lite server), the transfer is sent
to that node and heard from its streams: `confirmed` is then what the
follower learnt from `liteServer.nonfinal.getPendingShardBlocks`. Prints one
JSON line; a failed expectation raises."""

import asyncio
import json
import sys

from streaming_common import Listening, funded_transfer, genesis, get_json, must, wait_for
from ton_core import NetworkGlobalID
from toncenter.streaming import ToncenterSSE
from toncenter.types import Network
from tonutils.clients import ToncenterClient


async def main(base, levels, node):
    accounts = genesis(base)
    client = ToncenterClient(NetworkGlobalID.MAINNET, base_url=f"{base}/api/v2", rps_limit=1000, rps_period=1)
    sender = ToncenterClient(NetworkGlobalID.MAINNET, base_url=f"{node}/api/v2", rps_limit=1000, rps_period=1)
    async with client, sender:
        me, message, norm = await funded_transfer(base, client, accounts[3]["address"], "pending")
        if node != base:
            # The follower has indexed the funding before the wallet sends.
            funded = get_json(base, "/api/v2/getMasterchainInfo")["result"]["last"]["seqno"]
            await wait_for(
                lambda: get_json(node, "/api/v2/getMasterchainInfo")["result"]["last"]["seqno"] >= funded,
                "the follower indexed the funding",
            )
        sse = Listening(ToncenterSSE("", Network.MAINNET, base_url=node))
        got = await sse.start(
            addresses=[me],
            types=["transactions", "actions", "trace", "account_state_change"],
            trace_external_hash_norms=[norm],
            min_finality="pending",
        )
        await sender.send_message(message.as_hex)
        # An account's state changes at confirmed and finalized, never pending.
        want = {(k, f) for k in ("transactions", "actions", "trace") for f in levels}
        want |= {("account_state_change", f) for f in levels if f != "pending"}
        done = lambda: {(n.type, n.finality) for n in got} >= want
        await wait_for(done, f"every kind at {levels}")
        await asyncio.sleep(1)
        await sse.close()
    seen = [(n.type, n.finality) for n in got]
    must(len(seen) == len(want) and set(seen) == want, f"each kind at each level once: {seen}")
    rank = {"pending": 0, "confirmed": 1, "finalized": 2}
    for kind in ("transactions", "actions", "trace", "account_state_change"):
        levels = [rank[f] for k, f in seen if k == kind]
        must(levels == sorted(levels), f"{kind} never goes down: {levels}")
    traced = [n for n in got if n.type != "account_state_change"]
    must(all(n.trace_external_hash_norm == norm for n in traced), "named by the normalized hash")
    states = [n for n in got if n.type == "account_state_change"]
    must(all(n.account == me.upper() for n in states), f"the wallet's state: {[n.account for n in states]}")
    final_state = [n.state for n in states if n.finality == "finalized"][0]
    must(final_state.account_status == "active", f"the wallet is deployed: {final_state}")
    final_after = [t for n in got if n.type == "transactions" and n.finality == "finalized" for t in n.transactions]
    must(final_state.hash == final_after[-1]["account_state_after"]["hash"], "the state its transaction left")
    pending_txs = [t for n in got if n.type == "transactions" and n.finality == "pending" for t in n.transactions]
    final_txs = [t for n in got if n.type == "transactions" and n.finality == "finalized" for t in n.transactions]
    must(all(t["emulated"] for t in pending_txs), "pending transactions are emulated")
    must(not any(t["emulated"] for t in final_txs), "finalized ones are not")
    # An emulated transaction names the masterchain block it ran on, before
    # the one that commits it (toncenter's emulator names it so).
    emulated_on = {t["mc_block_seqno"] for t in pending_txs}
    committed_in = {t["mc_block_seqno"] for t in final_txs}
    must(len(emulated_on) == 1 and len(committed_in) == 1, f"{emulated_on} {committed_in}")
    must(isinstance(min(emulated_on), int) and min(emulated_on) < min(committed_in), f"{emulated_on} {committed_in}")
    # Emulated at another time than the block's, the transaction differs in
    # its hash; the account and the message it executes are the same.
    must(
        [(t["account"], t["in_msg"]["hash"]) for t in pending_txs]
        == [(t["account"], t["in_msg"]["hash"]) for t in final_txs],
        "the emulation executed the message the chain then executed",
    )
    if "confirmed" in levels:
        confirmed_txs = [
            t for n in got if n.type == "transactions" and n.finality == "confirmed" for t in n.transactions
        ]
        must(not any(t["emulated"] for t in confirmed_txs), "confirmed transactions are not emulated")
        must(all(t["block_ref"] for t in confirmed_txs), "confirmed transactions name their shard block")
        # And the masterchain block after the newest one then: the soonest
        # that can commit their shard block.
        expected = {t["mc_block_seqno"] for t in confirmed_txs}
        must(
            len(expected) == 1 and min(emulated_on) < min(expected) <= min(committed_in),
            f"confirmed in {expected}, emulated on {emulated_on}, committed in {committed_in}",
        )
        must(
            [t["hash"] for t in confirmed_txs] == [t["hash"] for t in final_txs],
            "the confirmed transactions are the ones the masterchain block then commits",
        )
        # Read from the shard block's state update (code and data pruned
        # there), the confirmed state is the one the cell store then holds.
        confirmed_state = [n.state for n in states if n.finality == "confirmed"][0]
        must(confirmed_state == final_state, f"confirmed {confirmed_state} == finalized {final_state}")
    print(json.dumps({"ok": True, "seen": seen}))


LEVELS = ("pending", "confirmed", "finalized") if sys.argv[2:3] == ["confirmed"] else ("pending", "finalized")
asyncio.run(main(sys.argv[1], LEVELS, sys.argv[3] if len(sys.argv) > 3 else sys.argv[1]))
