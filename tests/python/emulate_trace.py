"""Emulate API v1 against `tonindex dev` (argv[1] = base URL): a tonutils
wallet's signed transfer (state init and all) is emulated with
`emulateTrace` — nothing is sent: the wallet stays undeployed — and then
sent; the trace the chain makes must be the one emulated: the same
accounts executing the same messages in the same tree, the same outcomes,
the same balances after each transaction (less the storage fee, which
depends on the second each ran in), the same actions. Bad requests get
toncenter's words; a message its wallet no longer takes is a 422, and runs
again on the state of an earlier block named by `mc_block_seqno`. Prints one JSON line; a failed expectation raises."""

import asyncio
import base64
import json
import sys
import urllib.parse

from streaming_common import funded_transfer, genesis, get_json, must, post_json
from ton_core import NetworkGlobalID
from tonutils.clients import ToncenterClient

EMULATE = "/api/emulate/v1/emulateTrace"


def shape(tx):
    """What the chain and the emulation must agree on for one transaction."""
    d = tx["description"]
    storage = int((d.get("storage_ph") or {}).get("storage_fees_collected") or 0)
    compute = d.get("compute_ph") or {}
    m = tx["in_msg"]
    return (
        tx["account"],
        # An internal message's hash holds its creation lt and time, which
        # differ between the emulation and the block: its ends and value do not.
        m["hash"] if m["source"] is None else (m["source"], m["value"]),
        tx["orig_status"],
        tx["end_status"],
        d.get("aborted"),
        compute.get("exit_code"),
        len(tx["out_msgs"]),
        # The balance after, storage fee added back (it depends on the time).
        int(tx["account_state_after"]["balance"]) + storage,
    )


def tree(node, txs):
    return (txs[node["tx_hash"]]["account"], [tree(c, txs) for c in node.get("children") or []])


async def main(base):
    accounts = genesis(base)
    client = ToncenterClient(NetworkGlobalID.MAINNET, base_url=f"{base}/api/v2", rps_limit=1000, rps_period=1)
    async with client:
        me, message, _ = await funded_transfer(base, client, accounts[3]["address"], "emulated first")
        boc = base64.b64encode(bytes.fromhex(message.as_hex)).decode()
        status, emu = post_json(
            base,
            EMULATE,
            {"boc": boc, "with_actions": True, "include_code_data": True, "include_address_book": True},
        )
        must(status == 200, f"emulateTrace: {status} {emu}")
        for key in ("mc_block_seqno", "trace", "transactions", "actions", "code_cells", "data_cells", "address_book", "rand_seed"):
            must(key in emu, f"{key} in the answer")
        must(emu["is_incomplete"] is False, "the whole trace")
        must(all(t["emulated"] and t["finality"] == "pending" for t in emu["transactions"].values()), "emulated")
        # Each names the masterchain block it was emulated on, as toncenter's do.
        must(
            all(t["mc_block_seqno"] == emu["mc_block_seqno"] for t in emu["transactions"].values()),
            f"the block emulated on: {[t['mc_block_seqno'] for t in emu['transactions'].values()]}",
        )
        wallet_after = [t for t in emu["transactions"].values() if t["account"].lower() == me.lower()]
        must(wallet_after, "the wallet's transaction")
        must(wallet_after[0]["account_state_after"]["code_hash"] in emu["code_cells"], "its code among code_cells")
        must(wallet_after[0]["account_state_after"]["account_status"] == "active", "deployed by its message")
        state = get_json(base, f"/api/v3/accountStates?address={urllib.parse.quote(me)}&include_boc=false")
        must(all(a["status"] != "active" for a in state["accounts"]), f"nothing was sent: {state}")

        # Bad input: toncenter's words, 400.
        for body, want in [({}, "invalid request: boc is required"), ({"boc": "%%%"}, "invalid request: invalid boc")]:
            status, v = post_json(base, EMULATE, body)
            must(status == 400 and v["error"].startswith(want), f"{body}: {status} {v}")

        await client.send_message(message.as_hex)
    root = emu["trace"]["tx_hash"]
    in_msg = emu["transactions"][root]["in_msg"]["hash"]
    real = get_json(base, f"/api/v3/traces?msg_hash={urllib.parse.quote(in_msg)}&include_actions=true")["traces"]
    must(len(real) == 1, f"the real trace: {real}")
    real = real[0]
    ours = sorted(shape(t) for t in emu["transactions"].values())
    chain = sorted(shape(t) for t in real["transactions"].values())
    must(ours == chain, f"the same transactions:\n{ours}\n{chain}")
    must(tree(emu["trace"], emu["transactions"]) == tree(real["trace"], real["transactions"]), "the same tree")
    must(kinds(emu["actions"]) == kinds(real["actions"]), f"the same actions: {emu['actions']} {real['actions']}")
    # Executed now, the same message is one the wallet no longer takes (its
    # seqno moved on): the client's mistake, 422 with the executor's reason.
    status, again = post_json(base, EMULATE, {"boc": boc})
    must(status == 422 and "not accepted" in again["error"], f"a stale message: {status} {again}")
    # On the state of the block it was first emulated on (kept by [index]
    # keep_states), the same message runs as it did then: mc_block_seqno
    # names the state, its accounts, config and time.
    status, earlier = post_json(base, EMULATE, {"boc": boc, "with_actions": True, "mc_block_seqno": emu["mc_block_seqno"]})
    must(status == 200, f"emulating on block {emu['mc_block_seqno']}: {status} {earlier}")
    must(earlier["mc_block_seqno"] == emu["mc_block_seqno"], f"the block it ran on: {earlier['mc_block_seqno']}")
    must(sorted(shape(t) for t in earlier["transactions"].values()) == chain, "on the earlier state, the chain's transactions")
    must(kinds(earlier["actions"]) == kinds(real["actions"]), "and its actions")
    # Before the wallet was funded (block 1), it cannot pay for its message.
    status, unfunded = post_json(base, EMULATE, {"boc": boc, "mc_block_seqno": 1})
    must(status == 422, f"on block 1, before the wallet had a coin: {status} {unfunded}")
    print(json.dumps({"ok": True, "transactions": len(ours), "actions": kinds(emu["actions"])}))


def kinds(acts):
    return sorted((a["type"], a["success"]) for a in acts)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
