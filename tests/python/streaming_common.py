"""What the streaming scripts share: checks, the devnet faucet, collecting a
client's notifications, waiting, and a tonutils wallet transfer built (not
sent) with the normalized hash of its external message."""
import asyncio
import base64
import json
import socket
import threading
import time
import urllib.error
import urllib.parse
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


async def wait_seqno(wallet, want, seconds=5):
    """Waits until a tonutils wallet is active at seqno `want` or later."""
    for _ in range(seconds * 10):
        await wallet.refresh()
        if wallet.is_active and await wallet.seqno() >= want:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"seqno never reached {want}")


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
    me, [(message, norm)] = await funded_transfers(base, client, to, [comment])
    return me, message, norm


async def funded_transfers(base, client, to, comments):
    """As `funded_transfer`, one transfer built per comment, all with the
    wallet's first seqno (so that the chain executes only the first sent):
    the wallet's raw address and each (message, normalized hash)."""
    wallet, _, _, _ = WalletV4R2.create(client)
    me = wallet.address.to_str(is_user_friendly=False)
    await asyncio.get_running_loop().run_in_executor(None, fund, base, me, 3_000_000_000)
    built = []
    for comment in comments:
        message = await wallet.build_external_message(
            [TONTransferBuilder(destination=to, amount=500_000_000, body=comment)]
        )
        built.append((message, base64.b64encode(bytes.fromhex(message.normalized_hash)).decode()))
    return me, built


def post_json(base, path, body):
    """POSTs JSON; (status, the JSON answer), errors included."""
    req = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def get_json(base, path, timeout=30):
    with urllib.request.urlopen(base + path, timeout=timeout) as r:
        return json.loads(r.read())


def open_sse(base, sub, rcvbuf=None):
    """A raw SSE subscription (for what no client library sends: `since`)."""
    url = urllib.parse.urlsplit(base)
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect((url.hostname, url.port))
    body = json.dumps(sub).encode()
    s.sendall(
        b"POST /api/streaming/v2/sse HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body) + body
    )
    return s


def events(raw):
    """The `data` of each `event: event` frame of a chunked SSE response
    (a chunk cut short at the end is left out)."""
    head, done, rest = raw.partition(b"\r\n\r\n")
    if not done:
        return []  # the answer's head is still to come
    assert head.startswith(b"HTTP/1.1 200"), head[:200]
    body = b""
    while rest:
        size_line, sep, rest = rest.partition(b"\r\n")
        if not sep:
            break
        size = int(size_line, 16)
        if size == 0 or len(rest) < size + 2:
            break
        body += rest[:size]
        rest = rest[size + 2 :]
    out = []
    for frame in body.decode().split("\n\n"):
        lines = frame.split("\n")
        if lines[0] == "event: event":
            out.append(lines[1].removeprefix("data: "))
    return out


class Reader(threading.Thread):
    """Reads a stream as fast as it comes."""

    def __init__(self, sock):
        super().__init__(daemon=True)
        self.sock, self.raw, self.lock = sock, b"", threading.Lock()

    def run(self):
        while True:
            try:
                chunk = self.sock.recv(1 << 20)
            except OSError:
                return
            if not chunk:
                return
            with self.lock:
                self.raw += chunk

    def events(self):
        with self.lock:
            return events(self.raw)


def wait_until(what, check, seconds=60, state=None):
    """Waits (blocking) until `check()` holds; on timeout, says what
    `state()` shows, when given."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.1)
    seen = f": {state()}" if state else ""
    raise AssertionError(f"timed out waiting for {what}{seen}")
