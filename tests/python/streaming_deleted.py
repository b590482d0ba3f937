"""PyPI toncenter 0.4.0's ToncenterSSE, unchanged, against `tonindex dev
--block-interval --confirm-gap` (argv[1] = base URL), subscribed to a fresh
tonutils wallet's `account_state_change` from `confirmed` on: the wallet is
deployed by its first transfer, then sends all it has with mode 128 + 32,
which deletes it. Each of the two states comes at `confirmed` and then at
`finalized`, the same state both times and the one the wallet's transaction
names; the second says `nonexist` with a zero balance (an account gone is a
change a client tracking balances must hear). Prints one JSON line; a
failed expectation raises."""
import asyncio
import json
import sys

from streaming_common import Listening, fund, genesis, get_json, must, wait_for, wait_seqno
from ton_core import NetworkGlobalID
from toncenter.streaming import ToncenterSSE
from toncenter.types import Network
from tonutils.clients import ToncenterClient
from tonutils.contracts import TONTransferBuilder, WalletV4R2


async def main(base):
    to = genesis(base)[3]["address"]
    client = ToncenterClient(NetworkGlobalID.MAINNET, base_url=f"{base}/api/v2", rps_limit=1000, rps_period=1)
    async with client:
        wallet, _, _, _ = WalletV4R2.create(client)
        me = wallet.address.to_str(is_user_friendly=False)
        await asyncio.get_running_loop().run_in_executor(None, fund, base, me, 2_000_000_000)
        sse = Listening(ToncenterSSE("", Network.MAINNET, base_url=base))
        got = await sse.start(addresses=[me], types=["account_state_change"], min_finality="confirmed")
        await wallet.transfer(to, 100_000_000, body="deploy")
        await wait_seqno(wallet, 1, seconds=20)
        gone = await wallet.build_external_message([TONTransferBuilder(destination=to, amount=0, send_mode=128 + 32)])
        await client.send_message(gone.as_hex)
        await wait_for(lambda: len(got) >= 4, "two states at two levels", seconds=60)
        await asyncio.sleep(2)
        await sse.close()
    seen = [(n.finality, n.state.account_status) for n in got]
    want = [("confirmed", "active"), ("finalized", "active"), ("confirmed", "nonexist"), ("finalized", "nonexist")]
    must(seen == want, f"each state at confirmed, then finalized: {seen}")
    must(got[0].state == got[1].state and got[2].state == got[3].state, "the same state at both levels")
    last = get_json(base, f"/api/v3/transactions?account={me}&limit=1")["transactions"][0]
    must(last["end_status"] == "nonexist", f"the wallet is deleted: {last['end_status']}")
    must(got[3].state.hash == last["account_state_after"]["hash"], "the state its last transaction names")
    must(got[3].state.balance == "0" and got[3].state.code_hash is None, f"nothing left: {got[3].state}")
    print(json.dumps({"ok": True, "seen": seen}))


asyncio.run(main(sys.argv[1]))
