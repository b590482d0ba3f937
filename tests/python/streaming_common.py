"""What the streaming scripts share: checks, the devnet faucet, collecting a
client's notifications, waiting, and a tonutils wallet transfer built (not
sent) with the normalized hash of its external message."""
import asyncio
import base64
import json
import urllib.request

from tonutils.contracts import TONTransferBuilder


def must(cond, what):
    if not cond:
        raise AssertionError(f"expectation failed: {what}")


def fund(base, address, amount):
    body = json.dumps({"address": address, "amount": str(amount)}).encode()
    req = urllib.request.Request(f"{base}/dev/fund", data=body, method="POST")
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def genesis(base):
    with urllib.request.urlopen(f"{base}/dev/accounts") as r:
        return json.load(r)


async def collect(client, out, stop, **kwargs):
    async for n in client.subscribe(stop=stop, **kwargs):
        out.append(n)


async def wait_for(pred, what, seconds=30):
    for _ in range(seconds * 20):
        if pred():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def funded_transfer(base, wallet, to, comment):
    """Funds `wallet` from the faucet, then builds (does not send) its
    transfer to `to`: the message, and its normalized hash in base64 as
    tonutils computes it (TEP-467)."""
    me = wallet.address.to_str(is_user_friendly=False)
    await asyncio.get_running_loop().run_in_executor(None, fund, base, me, 3_000_000_000)
    message = await wallet.build_external_message(
        [TONTransferBuilder(destination=to, amount=500_000_000, body=comment)]
    )
    return message, base64.b64encode(bytes.fromhex(message.normalized_hash)).decode()
