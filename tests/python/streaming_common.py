"""What the streaming scripts share: checks, the devnet faucet, collecting a
client's notifications, waiting, and a tonutils wallet transfer built (not
sent) with the normalized hash of its external message."""
import asyncio
import base64
import json
import urllib.request

from tonutils.contracts import TONTransferBuilder, WalletV4R2


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


class Listening:
    """A streaming client, subscribed, its notifications collected as they come."""

    def __init__(self, client):
        self.client = client
        self.got = []
        self.stop = asyncio.Event()
        self.task = None

    async def start(self, **subscription):
        await self.client.create_session()
        self.task = asyncio.create_task(collect(self.client, self.got, self.stop, **subscription))
        await self.client.wait_subscribed(timeout=10)
        return self.got

    async def close(self):
        self.stop.set()
        self.task.cancel()
        await self.client.close_session()


async def funded_transfer(base, client, to, comment):
    """A new tonutils wallet v4r2 on `client`, funded from the faucet, and
    its transfer to `to` built (not sent): the wallet's raw address, the
    message, and its normalized hash in base64 as tonutils computes it
    (TEP-467)."""
    wallet, _, _, _ = WalletV4R2.create(client)
    me = wallet.address.to_str(is_user_friendly=False)
    await asyncio.get_running_loop().run_in_executor(None, fund, base, me, 3_000_000_000)
    message = await wallet.build_external_message(
        [TONTransferBuilder(destination=to, amount=500_000_000, body=comment)]
    )
    return me, message, base64.b64encode(bytes.fromhex(message.normalized_hash)).decode()
