"""tonutils (PyPI, nessshon) end to end against `tonindex dev` (argv[1] = base
URL), through its ToncenterClient (API v2): a fresh wallet v4r2 is funded by
the faucet, deployed by its first transfer, read back (state, balance, seqno,
get-method), and its transactions listed; a bounceable transfer to an address
nobody deployed bounces. Prints one JSON line; a failed expectation raises."""
import asyncio
import json
import sys
import urllib.request

from ton_core import NetworkGlobalID
from tonutils.clients import ToncenterClient
from tonutils.contracts import WalletV4R2

from streaming_common import must, wait_seqno




async def main(base):
    client = ToncenterClient(
        NetworkGlobalID.MAINNET, base_url=f"{base}/api/v2", rps_limit=1000, rps_period=1
    )
    async with client:
        wallet, _, _, _ = WalletV4R2.create(client)
        raw = wallet.address.to_str(is_user_friendly=False)
        body = json.dumps({"address": raw, "amount": "4000000000"}).encode()
        with urllib.request.urlopen(urllib.request.Request(f"{base}/dev/fund", data=body, method="POST")) as r:
            funded = json.load(r)
        must(funded["mc_seqno"] > 0, "fund answer")
        info = await client.get_info(wallet.address)
        must(info.balance == 4_000_000_000, f"balance after funding: {info.balance}")

        with urllib.request.urlopen(f"{base}/dev/accounts") as r:
            genesis = json.load(r)
        await wallet.transfer(genesis[3]["address"], 1_000_000_000, body="from tonutils")
        await wait_seqno(wallet, 1)
        must(wallet.is_active, "deployed")
        must(wallet.balance < 3_000_000_000, f"balance after the transfer: {wallet.balance}")
        txs = await client.get_transactions(wallet.address, limit=10)
        must(len(txs) == 2, f"transactions: {len(txs)}")

        nowhere = "0:" + "45" * 32
        await wallet.transfer(nowhere, 200_000_000, bounce=True)
        await wait_seqno(wallet, 2)
        there = await client.get_transactions(nowhere, limit=5)
        must(len(there) == 1, "the undeployed address has the bounced transaction")
        back = await client.get_transactions(wallet.address, limit=1)
        must(back[0].in_msg is not None and back[0].in_msg.info.bounced, "the bounce came back")
        print(json.dumps({"ok": True, "wallet": raw}))


asyncio.run(main(sys.argv[1]))
