"""Emulate API v1's `emulateTonConnect` against `tonindex dev` (argv[1] =
base URL): for a genesis v4r2 and a genesis v5r1 wallet, a TON Connect
request (a comment transfer to a non-bounceable address) is emulated —
the node builds the wallet's message from its state; nothing is sent: the
seqno stays — then tonutils signs the same transfer with the wallet's real
key and sends it: the chain's trace must be the one emulated (the same
accounts, outcomes, balances less the time-dependent storage fee, and
actions, the comment among them). Bad requests get toncenter's words.
Prints one JSON line; a failed expectation raises."""

import asyncio
import base64
import json
import sys
import urllib.parse

from emulate_trace import kinds, shape, tree
from pytoniq_core import begin_cell
from streaming_common import genesis, get_json, must, post_json
from ton_core import NetworkGlobalID
from tonutils.clients import ToncenterClient
from tonutils.contracts import TONTransferBuilder, WalletV4R2, WalletV5R1

EMULATE = "/api/emulate/v1/emulateTonConnect"


def seqno(base, address):
    info = get_json(base, f"/api/v2/getWalletInformation?address={urllib.parse.quote(address)}")
    return info["result"]["seqno"]


async def one(base, client, account, kind, to, amount):
    wallet, _, _, _ = kind.from_mnemonic(client, account["mnemonic"])
    mine = wallet.address.to_str(is_user_friendly=False).lower()
    must(mine == account["address"].lower(), f"tonutils' wallet is the genesis one: {mine} {account}")
    comment = base64.b64encode(begin_cell().store_uint(0, 32).store_snake_string("hello").end_cell().to_boc()).decode()
    before = seqno(base, account["address"])
    status, emu = post_json(
        base,
        EMULATE,
        {
            "from": account["friendly"],
            "messages": [{"address": to["friendly"], "amount": str(amount), "payload": comment}],
            "with_actions": True,
        },
    )
    must(status == 200, f"emulateTonConnect {account['version']}: {status} {emu}")
    must(seqno(base, account["address"]) == before, "nothing was sent")
    txs = emu["transactions"]
    root = txs[emu["trace"]["tx_hash"]]
    must(root["account"].lower() == account["address"].lower(), "the wallet runs the request")
    must(root["description"]["compute_ph"]["exit_code"] == 0 and not root["description"]["aborted"], "accepted")
    must([m["value"] for m in root["out_msgs"]] == [str(amount)], f"one message of the amount: {root['out_msgs']}")
    transfers = [a for a in emu["actions"] if a["type"] == "ton_transfer"]
    must(transfers and transfers[0]["details"]["comment"] == "hello", f"the comment: {emu['actions']}")
    # The same transfer, signed by the wallet's own key, on the chain.
    message = await wallet.build_external_message(
        [TONTransferBuilder(destination=to["friendly"], amount=amount, body="hello")]
    )
    await client.send_message(message.as_hex)
    real_root_in = base64.b64encode(bytes.fromhex(message.normalized_hash)).decode()
    real = get_json(base, f"/api/v3/traces?msg_hash={urllib.parse.quote(real_root_in)}&include_actions=true")["traces"]
    must(len(real) == 1, f"the real trace of {account['version']}: {real}")
    real = real[0]
    ours = sorted(shape(t) for t in txs.values())
    chain = sorted(shape(t) for t in real["transactions"].values())
    # The external messages differ (signature, valid_until): compare the rest.
    strip = lambda rows: [r[:1] + r[2:] if r[1] and not isinstance(r[1], tuple) else r for r in rows]
    must(strip(ours) == strip(chain), f"the same transactions:\n{ours}\n{chain}")
    must(tree(emu["trace"], txs) == tree(real["trace"], real["transactions"]), "the same tree")
    must(kinds(emu["actions"]) == kinds(real["actions"]), f"the same actions: {emu['actions']} {real['actions']}")
    return account["version"], kinds(emu["actions"])


async def main(base):
    accounts = genesis(base)
    by_version = {}
    for a in accounts:  # each version's first: the clients' default wallet
        by_version.setdefault(a["version"], a)
    to = accounts[4]
    client = ToncenterClient(NetworkGlobalID.MAINNET, base_url=f"{base}/api/v2", rps_limit=1000, rps_period=1)
    done = []
    async with client:
        done.append(await one(base, client, by_version["wallet_v4r2"], WalletV4R2, to, 123_456_789))
        done.append(await one(base, client, by_version["wallet_v5r1"], WalletV5R1, to, 223_456_789))
    for body, want in [
        ({"messages": []}, "invalid request: from address is required for emulation"),
        ({"from": to["friendly"], "messages": []}, "invalid request: messages array cannot be empty"),
        ({"from": to["friendly"], "messages": [{"address": to["friendly"]}] * 5}, "invalid request: messages array cannot contain more than 4 messages"),
        ({"from": to["friendly"], "messages": [{"address": to["friendly"], "amount": "-1"}]}, "invalid request: invalid amount in message at index 0"),
        ({"from": to["friendly"], "messages": [{"address": to["friendly"], "amount": "1", "payload": "%%"}]}, "invalid request: invalid message payload at index 0"),
    ]:
        status, v = post_json(base, EMULATE, body)
        must(status == 400 and v["error"].startswith(want), f"{body}: {status} {v}")
    print(json.dumps({"ok": True, "wallets": done}))


asyncio.run(main(sys.argv[1]))
